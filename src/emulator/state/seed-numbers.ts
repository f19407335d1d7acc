/**
 * The default seed's Lite number, and the customer the docs, the demo and the CLI's examples write
 * from: one place, so that the seed, `trigger`'s defaults and the printed examples agree. No
 * imports: the CLI's `trigger` reads it to build its options without loading the emulator.
 */
export const SEED_LITE_NUMBER = '+27820000001';

/** The customer of the examples: any number the seed does not hold works the same. */
export const EXAMPLE_CUSTOMER = '+27831234567';
