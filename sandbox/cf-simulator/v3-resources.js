// Cloud Controller v3 answer shapes: the paginated list, app and process resources, process stats entries.
import { guidFrom } from './fixtures.js';

/**
 * A v3 page of `items` with the real pagination object.
 * @param {import('./reply.js').SimulatorContext} context @param {URL} url @param {unknown[]} items
 */
export const page = (context, url, items) => {
  const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 50), context.faults.pageSize);
  const pageNo = Number(url.searchParams.get('page') ?? 1);
  const totalPages = Math.max(1, Math.ceil(items.length / perPage));
  /** @param {number} n */
  const link = (n) => {
    const u = new URL(url.pathname + url.search, context.base);
    u.searchParams.set('page', String(n));
    u.searchParams.set('per_page', String(perPage));
    return { href: u.toString() };
  };
  return {
    pagination: {
      total_results: items.length,
      total_pages: totalPages,
      first: link(1),
      last: link(totalPages),
      next: pageNo < totalPages ? link(pageNo + 1) : null,
      previous: pageNo > 1 ? link(pageNo - 1) : null,
    },
    resources: items.slice((pageNo - 1) * perPage, pageNo * perPage),
  };
};

/** @param {string} base @param {import('./fixtures.js').AppSpec} a */
export const appResource = (base, a) => ({
  guid: a.guid,
  name: a.name,
  state: a.state,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  lifecycle: { type: 'buildpack', data: { buildpacks: [], stack: 'cflinuxfs4' } },
  relationships: { space: { data: { guid: a.spaceGuid } } },
  links: { self: { href: `${base}/v3/apps/${a.guid}` }, processes: { href: `${base}/v3/apps/${a.guid}/processes` } },
});

/** @param {string} base @param {import('./fixtures.js').AppSpec} a @param {import('./fixtures.js').ProcessSpec} p */
export const processResource = (base, a, p) => ({
  guid: p.guid,
  type: p.type,
  instances: p.instances.length,
  memory_in_mb: p.memoryMb,
  disk_in_mb: p.diskMb,
  relationships: { app: { data: { guid: a.guid } } },
  links: {
    self: { href: `${base}/v3/processes/${p.guid}` },
    stats: { href: `${base}/v3/processes/${p.guid}/stats` },
  },
});

/**
 * The stats entry of an instance that is not up yet: zero usage, no quotas.
 * @param {import('./fixtures.js').ProcessSpec} p @param {number} index @param {string} now
 */
const startingEntry = (p, index, now) => ({
  type: p.type,
  index,
  state: 'STARTING',
  routable: false,
  usage: { cpu: 0, cpu_entitlement: 0, disk: 0, log_rate: 0, mem: 0, time: now.replace(/\.\d+Z$/, '+00:00') },
  disk_quota: null,
  fds_quota: 16384,
  host: '',
  instance_internal_ip: '',
  instance_ports: null,
  isolation_segment: null,
  log_rate_limit: null,
  mem_quota: null,
  uptime: 0,
  details: null,
});

/**
 * The v3 stats entry of one instance, in the shape its state has.
 * @param {import('./fixtures.js').Faults} faults
 * @param {import('./fixtures.js').ProcessSpec} p
 * @param {import('./fixtures.js').InstanceSpec} inst
 * @param {number} index
 */
export const statsEntry = (faults, p, inst, index) => {
  const now = new Date().toISOString().replace('Z', '123456Z');
  if (inst.state === 'DOWN')
    return { type: p.type, index, state: 'DOWN', routable: null, uptime: 0, isolation_segment: null, details: null };
  if (inst.state === 'STARTING') return startingEntry(p, index, now);
  const live = inst.live?.();
  /** @type {Record<string, unknown>} */
  const usage = faults.emptyUsage
    ? {}
    : {
        time: now,
        cpu: live?.cpu ?? inst.cpu ?? 0,
        mem: live?.mem ?? inst.mem ?? 0,
        disk: inst.disk ?? 0,
        log_rate: 0,
      };
  if (!faults.emptyUsage && inst.cpuEntitlement !== null)
    usage.cpu_entitlement = live?.cpuEntitlement ?? inst.cpuEntitlement ?? 0;
  return {
    type: p.type,
    index,
    instance_guid: guidFrom(`instance:${p.guid}:${index}`).slice(0, 28),
    state: inst.state,
    routable: inst.state === 'RUNNING',
    usage,
    host: '10.244.16.10',
    instance_internal_ip: '10.255.93.167',
    instance_ports: [
      { external: 64546, internal: 8080, external_tls_proxy_port: 61002, internal_tls_proxy_port: 61003 },
    ],
    uptime: live?.uptime ?? inst.uptime ?? 0,
    mem_quota: faults.emptyUsage ? null : p.memoryMb * 1024 * 1024,
    disk_quota: faults.emptyUsage ? null : p.diskMb * 1024 * 1024,
    fds_quota: 16384,
    isolation_segment: 'example_iso_segment',
    log_rate_limit: null,
    details: null,
  };
};
