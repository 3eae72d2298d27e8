/**
 * Keeps a gateway's claim on a running job (`locked_until`) alive: renewed every third of its time to live. A claim
 * that cannot be renewed is lost (the operator cancelled the job, or another gateway took it over after this one
 * stalled past its expiry): `onLost` stops the execution. A store that fails for a moment is reported and tried again
 * at the next renewal, while the claim still runs.
 */
import { toMissiveError, type MissiveError } from '../../../shared/errors.js';
import type { JobRepository } from '../store/storage.js';

export interface ClaimRenewal {
  /** Stops renewing (the job ended). */
  stop(): void;
}

export function renewClaimWhileRunning(
  jobs: JobRepository,
  claim: { jobId: string; owner: string; ttlMs: number },
  on: { lost: () => void; error: (error: MissiveError) => void },
): ClaimRenewal {
  let stopped = false;
  const timer = setInterval(
    () => {
      jobs.renewClaim(claim.jobId, claim.owner, new Date(Date.now() + claim.ttlMs).toISOString()).then(
        (held) => {
          if (!held && !stopped) on.lost();
        },
        (error: unknown) => on.error(toMissiveError(error)),
      );
    },
    Math.max(20, Math.floor(claim.ttlMs / 3)),
  );
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
