/** The file names and crash-safe file operations of `adapter file-drop`: claims, exactly-once publishing, archiving. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claimName,
  inputStem,
  isStale,
  MAX_STEM_BYTES,
  NAME_MAX,
  newClaim,
  parseClaim,
  shortStem,
  stemTooLong,
} from '../../electron/core/adapters/file-drop-claims.js';
import { archive, publishOnce, tempOwner } from '../../electron/core/adapters/file-drop-publish.js';
import { testPauseAfterClaimMs } from '../../electron/core/adapters/file-drop.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'missive-file-drop-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('file-drop names', () => {
  it('takes only finished *.json files, not dotfiles, temp files or replies-to-be', () => {
    expect(inputStem('job-1.json')).toBe('job-1');
    expect(inputStem('a.b.json')).toBe('a.b');
    for (const name of ['.job.json', 'job.json.tmp', 'job.tmp', '.json', 'notes.txt', '.job.claimed-12-abcdef012345']) expect(inputStem(name), name).toBeNull();
  });

  it('a claim name is a dotfile that round-trips its stem and pid', () => {
    const name = claimName('a.b-c', 4242);
    expect(name.startsWith('.')).toBe(true);
    expect(inputStem(name)).toBeNull();
    expect(parseClaim(name)).toEqual({ stem: 'a.b-c', pid: 4242, name });
    expect(parseClaim('.job.json.tmp')).toBeNull();
  });

  it('a stem too long for its claim name is claimed as .toolong- under a short stem that fits any NAME_MAX', () => {
    const fits = 'é'.repeat(MAX_STEM_BYTES / 2);
    expect(stemTooLong(fits)).toBe(false);
    expect(Buffer.byteLength(claimName(fits, 4_294_967_295))).toBeLessThanOrEqual(NAME_MAX);
    const long = `${fits}x`;
    expect(stemTooLong(long)).toBe(true);
    const short = shortStem(long);
    // 64 bytes of whole characters (32 × é), '~', 16 hex digits; the same for every adapter, different per stem.
    expect(short).toMatch(new RegExp(`^${'é'.repeat(32)}~[0-9a-f]{16}$`));
    expect(shortStem(long)).toBe(short);
    expect(shortStem(`${fits}y`)).not.toBe(short);
    const claim = newClaim(long, true, 4242);
    expect(claim).toMatchObject({ stem: short, pid: 4242, tooLong: true });
    expect(claim.name).toMatch(/\.toolong-4242-[0-9a-f]{12}$/);
    expect(parseClaim(claim.name)).toEqual(claim);
    expect(inputStem(claim.name)).toBeNull();
  });

  it('a claim is stale when its pid is dead or is our own (a previous process with our pid)', () => {
    expect(isStale({ stem: 's', pid: process.pid, name: '' })).toBe(true);
    expect(isStale({ stem: 's', pid: process.ppid, name: '' })).toBe(false);
    expect(isStale({ stem: 's', pid: 2 ** 30, name: '' })).toBe(true);
  });

  it('the pause hook exists only under NODE_ENV=test', () => {
    expect(testPauseAfterClaimMs({ NODE_ENV: 'test', MISSIVE_TEST_FILE_DROP_PAUSE_AFTER_CLAIM_MS: '250' })).toBe(250);
    expect(testPauseAfterClaimMs({ NODE_ENV: 'production', MISSIVE_TEST_FILE_DROP_PAUSE_AFTER_CLAIM_MS: '250' })).toBeUndefined();
    expect(testPauseAfterClaimMs({ MISSIVE_TEST_FILE_DROP_PAUSE_AFTER_CLAIM_MS: '250' })).toBeUndefined();
    expect(testPauseAfterClaimMs({ NODE_ENV: 'test' })).toBeUndefined();
  });
});

describe('publishOnce', () => {
  it('publishes once and never overwrites; no temp file is left', async () => {
    const target = join(dir, 'job.result.json');
    expect(await publishOnce(target, 'first')).toBe('published');
    expect(await publishOnce(target, 'second')).toBe('exists');
    expect(readFileSync(target, 'utf8')).toBe('first');
    expect(readdirSync(dir)).toEqual(['job.result.json']);
  });

  it('publishes a reply whose name is near NAME_MAX (the temp name is cut to fit)', async () => {
    const target = join(dir, `${'r'.repeat(NAME_MAX - '.error.json'.length)}.error.json`);
    expect(await publishOnce(target, 'long')).toBe('published');
    expect(readFileSync(target, 'utf8')).toBe('long');
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('names its temp files so a restart can tell whose they are', () => {
    expect(tempOwner('.job.result.json.tmp-123-abcd')).toBe(123);
    expect(tempOwner('job.result.json')).toBeNull();
  });
});

describe('archive', () => {
  it('moves the input, suffixing when the name is taken; deletes it without a directory', async () => {
    const out = join(dir, 'done');
    mkdirSync(out);
    for (const content of ['one', 'two']) {
      writeFileSync(join(dir, '.claim'), content);
      await archive(join(dir, '.claim'), out, 'job.json');
    }
    expect(readdirSync(out).sort()).toEqual(['job.1.json', 'job.json']);
    expect(readFileSync(join(out, 'job.1.json'), 'utf8')).toBe('two');
    writeFileSync(join(dir, '.claim'), 'three');
    expect(await archive(join(dir, '.claim'), null, 'job.json')).toBeNull();
    expect(readdirSync(dir).sort()).toEqual(['done']);
  });

  it('archives across filesystems (EXDEV: copy, rename, unlink), leaving no temp file behind', async () => {
    // /dev/shm is a tmpfs on Linux, usually another filesystem than the temp directory; elsewhere this is a plain move.
    const other = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'missive-file-drop-'));
    try {
      writeFileSync(join(dir, '.claim'), 'far away');
      const target = await archive(join(dir, '.claim'), other, 'job.json');
      expect(target).toBe(join(other, 'job.json'));
      expect(readFileSync(join(other, 'job.json'), 'utf8')).toBe('far away');
      expect(readdirSync(other)).toEqual(['job.json']);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
