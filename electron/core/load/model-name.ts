/** A load model in a few words, the same in the report, the table, the live view and the confirmation. */
import type { LoadModel } from './types.js';

const rateText = (perSecond: number) => `${Number.isInteger(perSecond) ? perSecond : perSecond.toFixed(2).replace(/\.?0+$/, '')}/s`;

/** `open-loop at 200/s` or `closed-loop, 8 virtual users`: every output says which model ran. */
export function describeModel(model: LoadModel): string {
  return model.kind === 'open' ? `open-loop at ${rateText(model.rate)}` : `closed-loop, ${model.concurrency} virtual user${model.concurrency === 1 ? '' : 's'}`;
}
