/**
 * The base of the package's coded errors. The receiver (`WebhookError`), the emulator
 * (`EmulatorError`) and the client (`PlatformError`) each have one abstract base over this class
 * and one subclass per failure, whose `code` is a string literal (narrowed by `instanceof` or by
 * comparing `code`) and whose `status` is the HTTP status it stands for. `name` is the subclass's
 * name, so logs and stack traces say which failure it was.
 */
export abstract class CodedError<C extends string> extends Error {
  abstract readonly code: C;
  /** The HTTP status: the one answered (receiver, emulator) or the one received (client). */
  abstract readonly status: number;

  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}
