/*
 * Defaults the commands share, in a module of their own: the program's --help shows them
 * without loading the emulator or the replay code.
 */

/**
 * Deliveries in flight at once for `emulator` (`--delivery-concurrency`) and requests in flight
 * for `replay` (`--concurrency`) when not told otherwise. Not 1, the library's default: there,
 * tests read the global emission order across conversations; from the command line a receiver
 * gets real traffic, where a slow answer for one conversation must not hold back the others,
 * and one at a time caps a load test or a replay at one round trip per event. One
 * conversation's events still go one at a time, in order, whatever the number (per URL in the
 * emulator). 16: enough to keep a local receiver busy (the fan-out bench runs 16 and 32), few
 * enough not to flood one. `1` restores the global order.
 */
export const CLI_CONCURRENCY = 16;
