/**
 * deploy/kubernetes.yaml, checked without a cluster: every document against
 * the Kubernetes API's types (kubernetes-schema.ts: kubernetes-types, strict,
 * so a misspelled field fails), then how the documents fit together (which
 * pods each Service and budget selects, the database Secret, the hardening).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { KUBERNETES_VERSION, schemaFor, validateObjects } from './kubernetes-schema.js';

const ROOT = join(import.meta.dirname, '..', '..');
const MANIFEST = join(ROOT, 'deploy', 'kubernetes.yaml');
const README = readFileSync(join(ROOT, 'deploy', 'README.md'), 'utf8');

// Manifests are walked field by field; their shape is what validateObjects checks.
// biome-ignore lint/suspicious/noExplicitAny: walked without a schema of its own.
type Manifest = Record<string, any>;

/**
 * The documents as kubectl reads them. YAML 1.1, as Kubernetes' parser
 * (sigs.k8s.io/yaml) speaks it: there `defaultMode: 0440` is octal (0o440);
 * in YAML 1.2 it would be the decimal 440.
 */
function parse(text: string): Manifest[] {
  const documents = parseAllDocuments(text, { version: '1.1' });
  if (!Array.isArray(documents)) throw new Error('deploy/kubernetes.yaml holds no document');
  for (const document of documents) {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`deploy/kubernetes.yaml: ${problems.map((problem) => problem.message).join('; ')}`);
  }
  return documents.map((document) => document.toJS() as Manifest);
}

const TEXT = readFileSync(MANIFEST, 'utf8');
const DOCS = parse(TEXT);

function find(kind: string, name: string): Manifest {
  const found = DOCS.filter((doc) => doc.kind === kind && doc.metadata?.name === name);
  expect(found, `${kind}/${name} in deploy/kubernetes.yaml`).toHaveLength(1);
  return found[0]!;
}

/** Errors of a changed copy of the manifest's documents (`change` edits the copy in place). */
function errorsAfter(change: (docs: Manifest[]) => void): string[] {
  const copy = structuredClone(DOCS);
  change(copy);
  return validateObjects(copy).flatMap((result) => result.errors.map((error) => `${result.label}: ${error}`));
}

const byKind = (docs: Manifest[], kind: string, name: string): Manifest => docs.find((doc) => doc.kind === kind && doc.metadata.name === name)!;

describe(`deploy/kubernetes.yaml against the Kubernetes ${KUBERNETES_VERSION} API (kubernetes-types)`, () => {
  it('holds the expected objects, each of a kind the schemas cover', () => {
    expect(DOCS.map((doc) => `${doc.apiVersion} ${doc.kind}/${doc.metadata?.name}`).sort()).toEqual([
      'apps/v1 Deployment/pdfsvc',
      'apps/v1 Deployment/pdfsvc-dashboard',
      'autoscaling/v2 HorizontalPodAutoscaler/pdfsvc',
      'policy/v1 PodDisruptionBudget/pdfsvc',
      'policy/v1 PodDisruptionBudget/pdfsvc-dashboard',
      'v1 Secret/pdfsvc-database',
      'v1 Service/pdfsvc',
      'v1 Service/pdfsvc-dashboard',
    ]);
    // No document is left unvalidated: each has a schema, and was checked against it.
    for (const doc of DOCS) expect(schemaFor(doc.apiVersion, doc.kind), `${doc.kind}/${doc.metadata.name}`).toBeDefined();
  });

  it('every document is valid', () => {
    const results = validateObjects(DOCS);
    expect(results).toHaveLength(DOCS.length);
    expect(results.flatMap((result) => result.errors.map((error) => `${result.label}: ${error}`))).toEqual([]);
  });

  it('a misspelled field in the file fails: replica for replicas', () => {
    expect(TEXT.match(/^ {2}replicas: 2$/gm)).toHaveLength(2);
    const broken = validateObjects(parse(TEXT.replace(/^ {2}replicas: 2$/m, '  replica: 2')));
    expect(broken.filter((result) => result.errors.length > 0).map((result) => result.label)).toEqual(['Deployment/pdfsvc']);
    expect(broken.find((result) => result.label === 'Deployment/pdfsvc')!.errors.join('\n')).toMatch(/'"replica"' does not exist in type 'DeploymentSpec'/);
  });

  it.each([
    [
      'containerPort misspelled',
      (docs: Manifest[]) => {
        const port = byKind(docs, 'Deployment', 'pdfsvc').spec.template.spec.containers[0].ports[0];
        port.containerPrt = port.containerPort;
        delete port.containerPort;
      },
      /'"containerPrt"' does not exist in type 'ContainerPort'/,
    ],
    [
      'secretKeyRef in the wrong case',
      (docs: Manifest[]) => {
        const env = byKind(docs, 'Deployment', 'pdfsvc-dashboard').spec.template.spec.containers[0].env[0];
        env.valueFrom = { secretkeyRef: env.valueFrom.secretKeyRef };
      },
      /'"secretkeyRef"' does not exist in type 'EnvVarSource'/,
    ],
    [
      'a budget field misspelled',
      (docs: Manifest[]) => {
        const spec = byKind(docs, 'PodDisruptionBudget', 'pdfsvc').spec;
        spec.maxUnavaliable = spec.maxUnavailable;
        delete spec.maxUnavailable;
      },
      /'"maxUnavaliable"' does not exist in type 'PodDisruptionBudgetSpec'/,
    ],
    [
      'a field one level too high (runAsNonRoot on the container)',
      (docs: Manifest[]) => {
        byKind(docs, 'Deployment', 'pdfsvc').spec.template.spec.containers[0].runAsNonRoot = true;
      },
      /'"runAsNonRoot"' does not exist in type 'Container'/,
    ],
    [
      'a port as a string',
      (docs: Manifest[]) => {
        byKind(docs, 'Service', 'pdfsvc').spec.ports[0].port = '443';
      },
      /Type 'string' is not assignable to type 'number'/,
    ],
    [
      "a required field missing (the container's name)",
      (docs: Manifest[]) => {
        delete byKind(docs, 'Deployment', 'pdfsvc').spec.template.spec.containers[0].name;
      },
      /Property 'name' is missing/,
    ],
    [
      'a Secret value that is not a string',
      (docs: Manifest[]) => {
        byKind(docs, 'Secret', 'pdfsvc-database').stringData['database-url'] = 5432;
      },
      /Type 'number' is not assignable to type 'string'/,
    ],
    [
      'a kind under the wrong apiVersion',
      (docs: Manifest[]) => {
        byKind(docs, 'HorizontalPodAutoscaler', 'pdfsvc').apiVersion = 'apps/v1';
      },
      /no schema for apiVersion "apps\/v1", kind "HorizontalPodAutoscaler"/,
    ],
    [
      'an API version Kubernetes removed (policy/v1beta1)',
      (docs: Manifest[]) => {
        byKind(docs, 'PodDisruptionBudget', 'pdfsvc').apiVersion = 'policy/v1beta1';
      },
      /no schema for apiVersion "policy\/v1beta1"/,
    ],
    [
      'a misspelled kind',
      (docs: Manifest[]) => {
        byKind(docs, 'Service', 'pdfsvc-dashboard').kind = 'Servcie';
      },
      /no schema for apiVersion "v1", kind "Servcie"/,
    ],
  ])('fails: %s', (_what, change, message) => {
    const errors = errorsAfter(change);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });
});

describe('deploy/kubernetes.yaml: how the pieces fit', () => {
  const api = find('Deployment', 'pdfsvc');
  const dashboard = find('Deployment', 'pdfsvc-dashboard');
  const deployments = [api, dashboard];
  const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);
  const selected = (selector: Record<string, string>) =>
    deployments.filter((deployment) => selects(selector, deployment.spec.template.metadata.labels)).map((deployment) => deployment.metadata.name);

  it('each Service and each disruption budget selects the pods of one Deployment', () => {
    for (const deployment of deployments) expect(selects(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels)).toBe(true);
    expect(selected(find('Service', 'pdfsvc').spec.selector)).toEqual(['pdfsvc']);
    expect(selected(find('Service', 'pdfsvc-dashboard').spec.selector)).toEqual(['pdfsvc-dashboard']);
    expect(selected(find('PodDisruptionBudget', 'pdfsvc').spec.selector.matchLabels)).toEqual(['pdfsvc']);
    expect(selected(find('PodDisruptionBudget', 'pdfsvc-dashboard').spec.selector.matchLabels)).toEqual(['pdfsvc-dashboard']);
  });

  it('the Services reach the container ports the servers listen on', () => {
    for (const [service, deployment] of [
      [find('Service', 'pdfsvc'), api],
      [find('Service', 'pdfsvc-dashboard'), dashboard],
    ] as const) {
      const container = deployment.spec.template.spec.containers[0];
      const port = container.ports.find((each: Manifest) => each.name === service.spec.ports[0].targetPort);
      expect(port, `${service.metadata.name} targetPort`).toBeDefined();
      expect(container.args).toContain(`--port=${port.containerPort}`);
      expect(container.args).toContain('--https');
    }
    expect(api.spec.template.spec.containers[0].args[0]).toBe('serve');
    expect(dashboard.spec.template.spec.containers[0].args[0]).toBe('dashboard');
    // The dashboard is served under /dashboard, and so is its health check.
    expect(dashboard.spec.template.spec.containers[0].readinessProbe.httpGet.path).toBe('/dashboard/healthz');
  });

  /** `pdfsvc <command> --help`, or undefined when this pdfsvc has no such command. */
  const help = (command: string): string | undefined => {
    const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'pdfsvc.js'), command, '--help'], { encoding: 'utf8' });
    return run.status === 0 && run.stdout.includes(`Usage: pdfsvc ${command} `) ? run.stdout : undefined;
  };

  /** Every option in the container's arguments is one `pdfsvc <command>` has, taking a value exactly when given one. */
  const expectKnownOptions = (deployment: Manifest, usage: string) => {
    const [, ...options] = deployment.spec.template.spec.containers[0].args as string[];
    for (const option of options) {
      const [name, value] = option.split(/=(.*)/s) as [string, string | undefined];
      const line = usage.split('\n').find((each) => each.trim().startsWith(`${name} `) || each.trim() === name);
      expect(line, `${deployment.metadata.name}: ${name} in pdfsvc ${deployment.spec.template.spec.containers[0].args[0]} --help`).toBeDefined();
      expect(/^\s*\S+ </.test(line!), `${name} takes a value`).toBe(value !== undefined);
    }
  };

  it("the API servers' arguments are options of pdfsvc serve", () => {
    const usage = help('serve');
    expect(usage).toBeDefined();
    expectKnownOptions(api, usage!);
  });

  const dashboardUsage = help('dashboard');
  // The dashboard command comes from another branch; once merged, this runs.
  it.skipIf(!dashboardUsage)(
    `the dashboard's arguments are options of pdfsvc dashboard${dashboardUsage ? '' : ' (skipped: this pdfsvc has no dashboard command yet)'}`,
    () => {
      expectKnownOptions(dashboard, dashboardUsage!);
    },
  );

  it('the autoscaler and the budget keep at least one API replica through a drain', () => {
    const hpa = find('HorizontalPodAutoscaler', 'pdfsvc');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'pdfsvc' });
    const budget = find('PodDisruptionBudget', 'pdfsvc').spec;
    expect(budget.maxUnavailable).toBe(1);
    expect(hpa.spec.minReplicas).toBeGreaterThan(budget.maxUnavailable);
    expect(api.spec.replicas).toBeGreaterThan(budget.maxUnavailable);
    expect(dashboard.spec.replicas).toBeGreaterThan(find('PodDisruptionBudget', 'pdfsvc-dashboard').spec.maxUnavailable);
  });

  it('both servers take the database URL from the Secret, never from their arguments', () => {
    const secret = find('Secret', 'pdfsvc-database');
    expect(secret.stringData['database-url']).toMatch(/^postgres:\/\/.*CHANGE-ME/);
    for (const deployment of deployments) {
      const container = deployment.spec.template.spec.containers[0];
      expect(container.env, deployment.metadata.name).toContainEqual({
        name: 'PDFSVC_DATABASE_URL',
        valueFrom: { secretKeyRef: { name: 'pdfsvc-database', key: 'database-url' } },
      });
      expect(
        container.args.filter((arg: string) => /^--(database-url|keys-file|data-dir)\b/.test(arg)),
        deployment.metadata.name,
      ).toEqual([]);
    }
  });

  it('every Secret the pods need is in the file or created as deploy/README.md says', () => {
    const inFile = DOCS.filter((doc) => doc.kind === 'Secret').map((doc) => doc.metadata.name);
    for (const deployment of deployments) {
      for (const volume of deployment.spec.template.spec.volumes) {
        if (!volume.secret) continue;
        const made = `kubectl create secret tls ${volume.secret.secretName} `;
        if (!inFile.includes(volume.secret.secretName)) expect(README.includes(made), `deploy/README.md says: ${made}…`).toBe(true);
        // Readable by the server's group (fsGroup) only.
        expect(volume.secret.defaultMode).toBe(0o440);
        expect(deployment.spec.template.spec.securityContext.fsGroup).toBe(1000);
      }
    }
  });

  it('both servers keep the hardening: non-root, read-only root, no privileges, probes, memory limit', () => {
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      const container = pod.containers[0];
      expect(pod.securityContext, deployment.metadata.name).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      for (const probe of [container.readinessProbe, container.livenessProbe]) expect(probe.httpGet).toMatchObject({ port: 'https', scheme: 'HTTPS' });
      expect(container.resources.limits.memory).toMatch(/^\d+[MG]i$/);
      // The grace period covers the preStop sleep and more.
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(Number(container.lifecycle.preStop.exec.command[1]));
    }
  });
});
