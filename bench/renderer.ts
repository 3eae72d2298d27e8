/**
 * Renderer benchmark in headless Debian Chromium, against a journal of 100,000 events in a real SQLite file:
 *   - time to first render of the app shell, as a ratio to loading a blank page from the same server in the same run
 *   - journal scroll frame times (rAF intervals while scrolling the virtualized Events view end to end), as a ratio
 *     to the same rAF loop on an idle page in the same run (≈ the display's frame budget)
 *
 *   npm run bench:renderer
 */
import { randomUUID } from 'node:crypto';
import { sandbox } from '../test/support/cli.js';
import { startGui } from '../test/support/gui.js';
import { median } from './_stats.js';
import { sqliteStore } from '../test/support/sqlite-store.js';

const EVENTS = 100_000;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

const box = sandbox();
const gui = await startGui(box);
try {
  const db = (await sqliteStore(gui.core)).db;
  const insert = db.prepare(`INSERT INTO events (event_id, source, event_type, payload_json) VALUES (?, 'bench', ?, '{}')`);
  (await sqliteStore(gui.core)).transaction(() => {
    for (let i = 0; i < EVENTS; i++)
      insert.run(randomUUID(), i % 3 === 0 ? 'a2a.send.completed' : i % 3 === 1 ? 'a2a.stream.status_update' : 'missive.bcast.member.succeeded');
  });
  const { page, browser } = gui;

  const firstRender: number[] = [];
  const blank: number[] = [];
  for (let i = 0; i < 5; i++) {
    let t0 = performance.now();
    await page.goto(gui.url);
    await page.getByTestId('view-agents').waitFor();
    firstRender.push(performance.now() - t0);
    const other = await browser.newPage();
    t0 = performance.now();
    await other.goto(`${gui.url}missing-blank-page`).catch(() => undefined);
    blank.push(performance.now() - t0);
    await other.close();
  }

  await page.getByTestId('nav-events').click();
  await page.getByTestId('event-list').waitFor();
  const loaded = await page.getByTestId('event-count').innerText();
  const frames = (scroll: boolean) =>
    page.evaluate(
      ({ scroll }) =>
        new Promise<number[]>((resolve) => {
          const list = document.querySelector('[data-testid=event-list]') as HTMLElement;
          const out: number[] = [];
          let last = performance.now();
          let n = 0;
          const step = () => {
            const now = performance.now();
            out.push(now - last);
            last = now;
            if (scroll) list.scrollTop = (list.scrollHeight * n) / 240;
            if (++n < 240) requestAnimationFrame(step);
            else resolve(out.slice(1));
          };
          requestAnimationFrame(step);
        }),
      { scroll },
    );
  const idle = await frames(false);
  const scrolling = await frames(true);
  console.log(`renderer: journal of ${loaded} in SQLite`);
  console.log(
    `first render ${median(firstRender).toFixed(0)} ms vs blank page ${median(blank).toFixed(0)} ms: ratio ${(median(firstRender) / median(blank)).toFixed(2)}`,
  );
  console.log(
    `scroll 100k rows: frame p50 ${median(scrolling).toFixed(1)} ms, p95 ${pct(scrolling, 0.95).toFixed(1)} ms vs idle p50 ${median(idle).toFixed(1)} ms: ratio p50 ${(median(scrolling) / median(idle)).toFixed(2)}, p95 ${(pct(scrolling, 0.95) / pct(idle, 0.95)).toFixed(2)}`,
  );
} finally {
  await gui.close().catch((e) => console.error(String(e)));
  box.dispose();
}
