/** The pieces the output schemas share: loose objects, task states, error reports, the negotiated interface. */
import { z } from 'zod';
import { TASK_STATES } from '../../task-states.js';

export const loose = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);
export const text = z.string();
export const maybeText = z.string().nullable();
export const count = z.number();

/** The local task states (the tasks table's CHECK constraint): shared/task-states.ts. */
export const taskState = z.enum(TASK_STATES);
export const dialect = z.enum(['1.0', '0.3']);

/** An error as the CLI reports it (shared/errors.ts `ErrorReport`), kept inside a result. */
export const reportedError = loose({ code: text, category: text, message: text, exit_code: count, help: text.optional() });

/** The interface negotiation picked (core/a2a/interfaces.ts `SelectedInterface`). */
export const selectedInterface = loose({
  binding: z.enum(['http+json', 'json-rpc', 'grpc']),
  protocol_binding: text,
  url: text,
  tenant: maybeText,
  /** The version the card declares for the interface, or `unknown`. */
  protocol_version: text,
  /** The wire missive speaks on it. */
  dialect,
  source: z.enum(['agent_card', 'registry_interface', 'base_url_fallback']),
  /** Its position in the card's supportedInterfaces (0-based), or null when it is not the card's (`NegotiatedInterface`). */
  card_index: count.nullable().optional(),
  /** The URL as the card declares it, when a relative one was resolved (against the card's URL) to `url`. */
  declared_url: maybeText.optional(),
  /** Why this interface was chosen: the same sentence in every view. */
  reason: text.optional(),
  /** The card's interfaces missive cannot call, passed over, with why. */
  skipped: z.array(loose({ card_index: count, protocol_binding: text, url: text, reason: text })).optional(),
});

/** An artifact written to disk (core/artifacts/write-files.ts `ArtifactFile`). */
export const artifactFile = loose({
  file: text,
  artifact_id: text,
  task_id: text,
  version: count,
  part_index: count,
  kind: text,
  media_type: maybeText,
  bytes: count,
});
