/* Marks the stretch of a run that callgrind counts (prepare_debug_overhead.py --instructions).
   Built by the benchmark with the machine's C compiler and valgrind's headers; run under
   valgrind --tool=callgrind --instr-atstart=no. */
#include <valgrind/callgrind.h>

void region_start(void) {
    CALLGRIND_ZERO_STATS;
    CALLGRIND_START_INSTRUMENTATION;
}

void region_stop(void) {
    CALLGRIND_STOP_INSTRUMENTATION;
    CALLGRIND_DUMP_STATS_AT("region");
}
