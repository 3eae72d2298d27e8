/**
 * Config-seeded agents and auth refs are synced into the registry before every registry use; they are read-only.
 * Without a config that seeds anything, and with no agent left from one that did, there is nothing to write: the sync
 * then reads one narrow query and takes no write lock (a command that only reads never waits for another writer).
 */
import type { EffectiveConfig } from '../config/load.js';
import type { Storage } from '../store/storage.js';
import { configError } from '../../../shared/errors.js';
import { flowFromSection } from '../config/auth-flow.js';
import { configClientTls } from './client-tls-paths.js';

export async function syncConfigSeeds(storage: Storage, config: EffectiveConfig): Promise<void> {
  const seeds = Object.keys(config.authRefs).length + Object.keys(config.agents).length;
  if (seeds === 0 && (await storage.agents.seededAliases()).length === 0) return;
  await storage.transaction(async (tx) => {
    for (const [name, ref] of Object.entries(config.authRefs)) {
      await tx.authRefs.upsert({
        name,
        kind: ref.kind,
        source: 'config_seed',
        headerName: ref.header ?? 'Authorization',
        scheme: ref.scheme ?? 'Bearer',
        envVar: ref.env ?? null,
        keyringService: ref.keyring_service ?? null,
        keyringAccount: ref.keyring_account ?? null,
        flow: flowFromSection(ref),
      });
    }
    for (const [alias, agent] of Object.entries(config.agents)) {
      const seed = {
        alias,
        source: 'config_seed' as const,
        baseUrl: agent.base_url,
        interfaceUrls: { ...agent.interfaces, ...agent.interface_urls },
        bindingPreference: agent.binding_preference,
        authRefName: agent.auth_ref ?? null,
        tags: agent.tags,
        notes: agent.notes ?? null,
        metadata: agent.metadata,
        trustedOrigins: agent.trusted_origins,
        allowCrossOriginAuth: agent.allow_cross_origin_auth,
        clientTls: configClientTls(config, alias, agent.client_tls),
        readOnly: true,
      };
      const source = await tx.agents.source(alias);
      if (!source) await tx.agents.insert(seed);
      else if (source === 'config_seed') await tx.agents.updateSeeded(seed);
      else {
        throw configError(
          'seed_conflict',
          `config agent "${alias}" clashes with a locally registered agent of the same alias`,
          `Rename one of them: missive agent rename ${alias} <new-alias>, or change the config.`,
        );
      }
      if (agent.auth_ref && !(await tx.authRefs.get(agent.auth_ref))) {
        throw configError('unknown_auth_ref', `config agent "${alias}" names auth ref "${agent.auth_ref}", which is not defined`);
      }
    }
    // An agent dropped from the config leaves the registry, unless journaled tasks still point at it:
    // then it stays as an ordinary local agent so its history remains linked.
    for (const alias of await tx.agents.seededAliases()) {
      if (config.agents[alias]) continue;
      if ((await tx.agents.countTasks(alias)) === 0) await tx.agents.remove(alias);
      else await tx.agents.releaseSeeded(alias);
    }
  });
}
