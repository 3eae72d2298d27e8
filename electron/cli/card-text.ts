/** Human output for signed cards and the extended Agent Card (`agent inspect`, `agent inspect --extended`). */
import type { SignatureView } from '../core/a2a/card-signature.js';
import type { ExtendedCardView } from '../core/agents/extended-card.js';
import type { CardWarning } from '../core/agents/card-warnings.js';
import { keyValues, table } from './human.js';

const SOURCE_TEXT = { jku: "the signature's jku", jwks_url: 'the configured jwks_url', jwks_file: 'the configured jwks_file' } as const;

/** One line: `verified (kid k1, key from the configured jwks_url)`, `unsigned`, `invalid: <reason>`. */
export function signatureText(view: SignatureView): string {
  if (view.status === 'verified') return `verified (kid ${view.kid}${view.key_source ? `, key from ${SOURCE_TEXT[view.key_source]}` : ''})`;
  if (view.status === 'unsigned') return 'unsigned';
  return `invalid: ${view.reason}`;
}

/** The card's warnings (the card stays usable), warnings first: `! missing_skills (skills): the card lists no skills…`. */
export function cardWarningsText(warnings: readonly CardWarning[]): string | undefined {
  if (!warnings.length) return undefined;
  const sorted = [...warnings].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'warning' ? -1 : 1));
  const count = warnings.filter((w) => w.severity === 'warning').length;
  return [
    `Card warnings (${count} warning(s), ${warnings.length - count} note(s); the card stays usable)`,
    ...sorted.map((w) => `  ${w.severity === 'warning' ? '!' : '-'} ${w.code}${w.field ? ` (${w.field})` : ''}: ${w.message}`),
  ].join('\n');
}

/** The extended card, as a section after the public card. */
export function extendedCardText(view: ExtendedCardView): string {
  const lines = [
    'Extended Agent Card',
    keyValues([
      ['name', `${view.card.name}${view.card.version ? ` v${view.card.version}` : ''}`],
      ['description', view.card.description],
      ['from', `${view.interface.binding} ${view.interface.url}`],
      ['card signature', signatureText(view.signature)],
      ['skills added', view.added_skills],
    ]),
  ];
  const skills = view.card.skills as Array<{ id: string; name?: string; tags?: string[] }>;
  if (skills.length)
    lines.push(
      '',
      table(
        ['id', 'name', 'tags'],
        skills.map((k) => [k.id, k.name ?? '', (k.tags ?? []).join(', ')]),
      ),
    );
  return lines.join('\n');
}
