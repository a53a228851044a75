/**
 * Why a sync failed, by class: never the peer's own words (a TLS alert, a banner, an address),
 * which would make the import a way to probe other hosts.
 */
export type SyncFailure =
  | 'timeout'
  | 'dns_error'
  | 'tls_error'
  | 'connection_error'
  | 'url_not_allowed'
  | 'parse_error'
  | 'too_large'
  | 'too_complex'
  | `http_${number}`;

export class SyncFailed extends Error {
  readonly failure: SyncFailure;

  constructor(failure: SyncFailure, cause?: unknown) {
    super(failure, { cause });
    this.failure = failure;
  }
}
