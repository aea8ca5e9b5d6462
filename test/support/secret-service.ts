import { Entry } from '@napi-rs/keyring';

/**
 * Whether a Secret Service answers here (npm test runs inside scripts/with-secret-service.sh).
 * Tests that need it are skipped with this reason when it does not.
 */
export function secretServiceProblem(): string | undefined {
  if (process.platform === 'linux' && process.env.EARMARK_SECRET_SERVICE !== 'ready') {
    return 'no private Secret Service session: run the tests through `npm test` (scripts/with-secret-service.sh)';
  }
  try {
    const probe = new Entry('Earmark-probe', 'probe');
    probe.setPassword('probe');
    probe.deletePassword();
    return undefined;
  } catch (error) {
    return `the system keychain is unavailable: ${(error as Error).message}`;
  }
}
