/**
 * Whether an answer to `POST /api/v1/events` means "not now, send the same batch again": a timeout
 * (408), too early (425), too many requests (429) or a server-side failure (5xx, the 503 of a log
 * that did not acknowledge in time among them). The batch goes again with the same event ids, which
 * the store keeps once. Any other refusal is final. The browser's tracker and the tests' harness
 * both ask this, so what a test delivers is what a participant's page would.
 *
 * No imports: the participant's page bundles this file.
 */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 425 || status === 429 || status >= 500;
