/**
 * Deployment files parse and agree with each other and with the code: every k8s manifest, docker-compose.yml
 * and the Dockerfile. Checks the fields that break a rollout when wrong: images, commands, probes, env,
 * selectors matching labels, scale targets, the KEDA query's metric, and non-root execution.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { metrics } from '../../src/metrics.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** `npm start`'s command, e.g. ['node', '--max-semi-space-size=2', 'dist/src/server.js']. */
const START_COMMAND = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start.split(' ');

type Obj = Record<string, unknown>;
type Manifest = Obj & { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> } };

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

function parseYaml(path: string): Obj[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  return docs.map((d) => {
    expect(d.errors, `${relative(ROOT, path)}: ${d.errors.map((e) => e.message).join('; ')}`).toEqual([]);
    return d.toJS() as Obj;
  });
}

const get = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((acc, k) => (acc === null || acc === undefined ? undefined : (acc as Obj)[k]), o);

const manifests: { file: string; doc: Manifest }[] = yamlFiles(join(ROOT, 'k8s')).flatMap((file) =>
  parseYaml(file)
    .filter((d) => d !== null)
    .map((doc) => ({ file: relative(ROOT, file), doc: doc as Manifest })),
);
const byKind = (kind: string) => manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc);
const deployments = byKind('Deployment');
const deployment = (name: string): Manifest => {
  const d = deployments.find((x) => x.metadata.name === name);
  expect(d, `Deployment ${name}`).toBeDefined();
  return d as Manifest;
};
const podLabels = (d: Manifest) => get(d, 'spec.template.metadata.labels') as Record<string, string>;
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const containers = (d: Manifest) => get(d, 'spec.template.spec.containers') as Obj[];
const configMap = byKind('ConfigMap').find((c) => c.metadata.name === 'sor-config') as Manifest;

/** Compose's `${VAR:?message}` replaced by what .env.example's documented command generates (64 hex digits). */
/**
 * The environment as compose gives it with a .env holding the required secrets and nothing else: `${X:?…}`
 * becomes a generated secret, `${X:-default}` its default.
 */
function withSecrets(env: Record<string, string>): Record<string, string> {
  const generated = 'f'.repeat(64);
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => {
      if (/^\$\{[A-Z_]+:\?[^}]*\}$/.test(v)) return [k, generated];
      const fallback = /^\$\{[A-Z_]+:-([^}]*)\}$/.exec(v);
      return [k, fallback ? fallback[1]! : v];
    }),
  );
}

describe('k8s manifests', () => {
  it('every document has apiVersion, kind and a name', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(10);
    for (const { file, doc } of manifests) {
      expect(typeof doc.apiVersion, file).toBe('string');
      expect(typeof doc.kind, file).toBe('string');
      expect(doc.metadata?.name, file).toMatch(/^[a-z0-9-]+$/);
    }
  });

  it('Deployments: selectors match pod labels; resources, non-root, no :latest images', () => {
    for (const d of deployments) {
      const name = d.metadata.name;
      expect(matches(get(d, 'spec.selector.matchLabels') as Record<string, string>, podLabels(d)), name).toBe(true);
      expect(get(d, 'spec.template.spec.securityContext.runAsNonRoot'), name).toBe(true);
      for (const c of containers(d)) {
        expect(c.image, name).toMatch(/:[\w.-]+$/);
        expect(c.image, name).not.toMatch(/:latest$/);
        for (const k of ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']) {
          expect(get(c.resources, k), `${name} resources.${k}`).toBeDefined();
        }
      }
    }
  });

  it('api and worker run the same image with the compiled entry points that exist in the source tree', () => {
    const [api] = containers(deployment('sor-api'));
    const [worker] = containers(deployment('sor-worker'));
    expect(api?.image).toBe(worker?.image);
    // The API runs exactly as `npm start` runs it (same node flags).
    expect(api?.command).toEqual(START_COMMAND);
    expect(worker?.command).toEqual(['node', 'dist/workers/queue.worker.js']);
    expect(existsSync(join(ROOT, 'src/server.ts'))).toBe(true);
    expect(existsSync(join(ROOT, 'workers/queue.worker.ts'))).toBe(true);
  });

  it('the api probes /healthz (liveness, startup) and /readyz (readiness) on its container port', () => {
    const [api] = containers(deployment('sor-api'));
    const portNames = (api?.ports as Obj[]).map((p) => p.name);
    expect(get(api, 'livenessProbe.httpGet.path')).toBe('/healthz');
    expect(get(api, 'startupProbe.httpGet.path')).toBe('/healthz');
    expect(get(api, 'readinessProbe.httpGet.path')).toBe('/readyz');
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      expect(portNames).toContain(get(api, `${probe}.httpGet.port`));
    }
    const port = (api?.ports as Obj[])[0]?.containerPort;
    const env = api?.env as { name: string; value: string }[];
    expect(env.find((e) => e.name === 'PORT')?.value).toBe(String(port));
  });

  it('the worker has a heartbeat liveness probe reading the file it is told to write', () => {
    const [worker] = containers(deployment('sor-worker'));
    const env = worker?.env as { name: string; value: string }[];
    const file = env.find((e) => e.name === 'QUEUE_WORKER_HEARTBEAT_FILE')?.value;
    expect(file).toBeDefined();
    expect((get(worker, 'livenessProbe.exec.command') as string[]).join(' ')).toContain(file);
    expect(get(deployment('sor-worker'), 'spec.template.spec.terminationGracePeriodSeconds')).toBeGreaterThanOrEqual(
      30,
    );
  });

  it('env comes from the ConfigMap, whose every key is a valid setting of the service or the worker', () => {
    expect(configMap).toBeDefined();
    const data = configMap.data as Record<string, string>;
    const known = new Set([
      ...Object.keys(loadConfig({})),
      'REDIS_URL',
      'ADMIN_TOKEN',
      'ADMIN_PORT',
      'QUEUE_SIGNING_KEY',
      'QUEUE_WORKER_HEARTBEAT_FILE',
    ]);
    for (const key of Object.keys(data)) expect(known, key).toContain(key);
    expect(() => loadConfig({ ...data, QUEUE_SIGNING_KEY: 'k'.repeat(32) })).not.toThrow();
    for (const name of ['sor-api', 'sor-worker']) {
      const refs = (containers(deployment(name))[0]?.envFrom as Obj[]).map((e) => get(e, 'configMapRef.name'));
      expect(refs, name).toContain('sor-config');
    }
  });

  it('Services select pods of a Deployment and target a named container port', () => {
    for (const svc of byKind('Service')) {
      const selector = get(svc, 'spec.selector') as Record<string, string>;
      const target = deployments.find((d) => matches(selector, podLabels(d)));
      expect(target, svc.metadata.name).toBeDefined();
      const portNames = containers(target as Manifest).flatMap((c) => ((c.ports as Obj[]) ?? []).map((p) => p.name));
      for (const p of get(svc, 'spec.ports') as Obj[]) expect(portNames).toContain(p.targetPort);
    }
    const redisUrl = new URL((configMap.data as Record<string, string>).REDIS_URL as string);
    expect(byKind('Service').map((s) => s.metadata.name)).toContain(redisUrl.hostname);
  });

  it('HPAs, the KEDA ScaledObject and PodDisruptionBudgets point at existing Deployments', () => {
    const scalers = [...byKind('HorizontalPodAutoscaler'), ...byKind('ScaledObject')];
    expect(scalers.map((s) => `${s.kind}/${get(s, 'spec.scaleTargetRef.name')}`).sort()).toEqual([
      'HorizontalPodAutoscaler/sor-api',
      'HorizontalPodAutoscaler/sor-worker',
      'ScaledObject/sor-worker',
    ]);
    for (const s of scalers) {
      expect(get(s, 'spec.scaleTargetRef.kind')).toBe('Deployment');
      deployment(get(s, 'spec.scaleTargetRef.name') as string);
    }
    const pdbs = byKind('PodDisruptionBudget');
    expect(pdbs.length).toBe(2);
    for (const pdb of pdbs) {
      const selector = get(pdb, 'spec.selector.matchLabels') as Record<string, string>;
      expect(deployments.some((d) => d.metadata.name !== 'sor-redis' && matches(selector, podLabels(d)))).toBe(true);
    }
  });

  it('KEDA scales workers on the queue metric the api exports, counting the states the list scaler missed', () => {
    const so = byKind('ScaledObject')[0] as Manifest;
    const trigger = (get(so, 'spec.triggers') as Obj[])[0] as Obj;
    expect(trigger.type).toBe('prometheus');
    const query = get(trigger, 'metadata.query') as string;
    // The gauge the api's /metrics serves (src/metrics.ts), one value per state across replicas.
    const gauge = (metrics.queueDepth as unknown as { name: string }).name;
    expect(query).toMatch(new RegExp(`^sum\\(max by \\(state\\) \\(${gauge}\\{state=~"([a-z|]+)"\\}\\)\\)$`));
    const states = /state=~"([a-z|]+)"/.exec(query)![1]!.split('|');
    expect(states.sort()).toEqual(['active', 'delayed', 'prioritized', 'waiting']);
    expect(Number(get(trigger, 'metadata.threshold'))).toBeGreaterThan(0);
    expect(get(so, 'spec.minReplicaCount')).toBeGreaterThanOrEqual(1);
  });

  it('the in-cluster Redis never evicts and keeps its data across a restart (AOF every second on a PVC)', () => {
    const redisDeployment = deployment('sor-redis');
    const [redis] = containers(redisDeployment);
    const args = redis?.args as string[];
    const arg = (name: string) => args[args.indexOf(name) + 1];
    expect(arg('--maxmemory-policy')).toBe('noeviction');
    expect(arg('--appendonly')).toBe('yes');
    expect(arg('--appendfsync')).toBe('everysec');
    // The AOF lives on the claim, and the claim is at least 3 × maxmemory (the AOF doubles before a rewrite).
    const mount = (redis?.volumeMounts as Obj[]).find((m) => m.mountPath === arg('--dir'));
    expect(mount, 'a volume mounted at --dir').toBeDefined();
    const volume = (get(redisDeployment, 'spec.template.spec.volumes') as Obj[]).find((v) => v.name === mount?.name);
    const claimName = get(volume, 'persistentVolumeClaim.claimName');
    const claim = byKind('PersistentVolumeClaim').find((c) => c.metadata.name === claimName);
    expect(claim, `PersistentVolumeClaim ${String(claimName)}`).toBeDefined();
    const bytes = (q: string) => {
      const m = /^(\d+)(gb|Gi|mb|Mi)$/.exec(q);
      if (!m) throw new Error(`unexpected quantity ${q}`);
      return Number(m[1]) * (m[2]?.startsWith('G') || m[2] === 'gb' ? 1024 ** 3 : 1024 ** 2);
    };
    const maxmemory = bytes(arg('--maxmemory') as string);
    expect(bytes(get(claim, 'spec.resources.requests.storage') as string)).toBeGreaterThanOrEqual(3 * maxmemory);
    expect(bytes(get(redis, 'resources.limits.memory') as string)).toBeGreaterThan(maxmemory);
  });

  it('the api and workers need the Secret: required secretRef, and the signing key (and admin token) from it', () => {
    for (const name of ['sor-api', 'sor-worker']) {
      const [c] = containers(deployment(name));
      const secretRefs = (c?.envFrom as Obj[]).filter((e) => e.secretRef !== undefined);
      expect(secretRefs.length, name).toBe(1);
      expect(get(secretRefs[0], 'secretRef.optional'), `${name}: the Secret is not optional`).not.toBe(true);
      const env = c?.env as Obj[];
      const fromSecret = (key: string) => env.find((e) => e.name === key);
      const required = name === 'sor-api' ? ['ADMIN_TOKEN', 'QUEUE_SIGNING_KEY'] : ['QUEUE_SIGNING_KEY'];
      for (const key of required) {
        const e = fromSecret(key);
        expect(get(e, 'valueFrom.secretKeyRef.name'), `${name} ${key}`).toBe('sor-secrets');
        expect(get(e, 'valueFrom.secretKeyRef.key'), `${name} ${key}`).toBe(key);
        expect(get(e, 'valueFrom.secretKeyRef.optional'), `${name} ${key}`).not.toBe(true);
      }
    }
    // No secret in the ConfigMap; the example Secret has no usable (non-empty) values to apply by mistake.
    const data = configMap.data as Record<string, string>;
    for (const key of ['ADMIN_TOKEN', 'QUEUE_SIGNING_KEY']) expect(Object.keys(data)).not.toContain(key);
    const example = byKind('Secret').find((x) => x.metadata.name === 'sor-secrets') as Manifest;
    for (const value of Object.values(example.stringData as Record<string, string>)) expect(value).toBe('');
  });

  it('the dashboard has its own container port (ADMIN_PORT), read-only, and no Service exposes it', () => {
    const data = configMap.data as Record<string, string>;
    expect(data.ADMIN_READ_ONLY).toBe('true');
    const [api] = containers(deployment('sor-api'));
    const admin = (api?.ports as Obj[]).find((p) => p.name === 'admin');
    expect(String(admin?.containerPort)).toBe(data.ADMIN_PORT);
    for (const svc of byKind('Service')) {
      for (const p of get(svc, 'spec.ports') as Obj[]) {
        expect([p.targetPort, p.port]).not.toContain('admin');
        expect(String(p.targetPort)).not.toBe(data.ADMIN_PORT);
        expect(String(p.port)).not.toBe(data.ADMIN_PORT);
      }
    }
  });
});

describe('docker-compose.yml', () => {
  const [compose] = parseYaml(join(ROOT, 'docker-compose.yml'));
  const services = get(compose, 'services') as Record<string, Obj>;

  it('runs Redis (noeviction), the API and two workers of the same image', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'redis', 'worker']);
    expect((services.redis?.command as string[]).join(' ')).toMatch(/--maxmemory-policy noeviction/);
    expect(get(services.worker, 'deploy.replicas')).toBe(2);
    expect(services.worker?.image).toBe(services.api?.image);
    expect(services.worker?.command).toEqual(['node', 'dist/workers/queue.worker.js']);
    for (const name of ['api', 'worker']) {
      const env = services[name]?.environment as Record<string, string>;
      expect(new URL(env.REDIS_URL as string).hostname).toBe('redis');
      expect(() => loadConfig(withSecrets(env))).not.toThrow();
      expect(get(services[name], 'depends_on.redis.condition')).toBe('service_healthy');
    }
    expect(services.api?.ports).toContain('8080:8080');
    // The image's HEALTHCHECK targets the API; the worker overrides it with its heartbeat file.
    const heartbeat = (services.worker?.environment as Record<string, string>).QUEUE_WORKER_HEARTBEAT_FILE;
    expect(heartbeat).toBeDefined();
    expect((get(services.worker, 'healthcheck.test') as string[]).join(' ')).toContain(heartbeat);
  });

  it('requires ADMIN_TOKEN and QUEUE_SIGNING_KEY (${VAR:?}), never a literal, and publishes only the API port', () => {
    const api = services.api?.environment as Record<string, string>;
    const worker = services.worker?.environment as Record<string, string>;
    const required = (name: string) => new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`);
    expect(api.ADMIN_TOKEN).toMatch(required('ADMIN_TOKEN'));
    expect(api.QUEUE_SIGNING_KEY).toMatch(required('QUEUE_SIGNING_KEY'));
    expect(worker.QUEUE_SIGNING_KEY).toMatch(required('QUEUE_SIGNING_KEY'));
    // The dashboard has its own port, which is not published; read-only stays the default (not overridden).
    expect(api.ADMIN_PORT).toBeDefined();
    expect(api.ADMIN_READ_ONLY ?? 'true').toBe('true');
    expect(services.api?.ports).toEqual([`${api.PORT}:${api.PORT}`]);
    expect(JSON.stringify(services.api?.ports)).not.toContain(String(api.ADMIN_PORT));
  });

  it('.env.example names both secrets with empty values and the command that generates them; .env is ignored', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    expect(example).toMatch(/^ADMIN_TOKEN=$/m);
    expect(example).toMatch(/^QUEUE_SIGNING_KEY=$/m);
    expect(example).toContain('openssl rand -hex 32');
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('.env');
    // The documented command, run as written, writes a .env whose values are valid, fresh settings.
    const command = /^#\s+(printf .*> \.env)$/m.exec(example)?.[1];
    expect(command).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'sor-env-'));
    try {
      execFileSync('sh', ['-c', command as string], { cwd: dir });
      const env = Object.fromEntries(
        readFileSync(join(dir, '.env'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      expect(env.ADMIN_TOKEN).toMatch(/^[0-9a-f]{64}$/);
      expect(env.QUEUE_SIGNING_KEY).toMatch(/^[0-9a-f]{64}$/);
      expect(env.ADMIN_TOKEN).not.toBe(env.QUEUE_SIGNING_KEY);
      expect(() => loadConfig({ ...env, REDIS_URL: 'redis://redis:6379' })).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Redis keeps the queue and jobs across a restart: AOF every second on a named volume, with maxmemory', () => {
    const command = services.redis?.command as string[];
    const arg = (name: string) => command[command.indexOf(name) + 1];
    expect(arg('--appendonly')).toBe('yes');
    expect(arg('--appendfsync')).toBe('everysec');
    expect(arg('--maxmemory')).toMatch(/^\d+(gb|mb)$/);
    const volumes = services.redis?.volumes as string[];
    const dataVolume = volumes.find((v) => v.endsWith(`:${arg('--dir')}`))?.split(':')[0];
    expect(dataVolume).toBeDefined();
    expect(Object.keys(get(compose, 'volumes') as Obj)).toContain(dataVolume);
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const stages = text.split(/^FROM /m).slice(1);

  it('is multi-stage on Node 24, runs compiled JS as a non-root user', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/node:24/);
    const final = stages[stages.length - 1] as string;
    expect(final).toMatch(/^USER node$/m);
    expect(final).toContain(`CMD ${JSON.stringify(START_COMMAND).replaceAll('","', '", "')}`);
    expect(final).not.toMatch(/COPY .*\bsrc\b/);
    expect(final).toMatch(/--from=build .*\/app\/dist/);
    expect(stages[0]).toMatch(/tsc -p tsconfig\.build\.json/);
    expect(stages[0]).toMatch(/npm prune --omit=dev/);
  });

  it('.dockerignore keeps tests, local builds and secrets out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', 'test', '.git', '.env']) expect(ignored).toContain(entry);
  });
});
