/**
 * A Kubernetes control plane on loopback from the binaries `npm run tools` builds: etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler and kwok (which plays every node's kubelet). Free ports, one
 * data directory, processes started detached so they outlive the command that started them, and their
 * PIDs kept in the directory's state file so `down` stops exactly what `up` started.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { Api, kubeconfigText, waitFor } from "./api";
import { type StageOptions, stagesYaml } from "./stages";

/** The Service range the API server allocates ClusterIPs from (Typha's Service needs one). */
export const SERVICE_CIDR = "10.96.0.0/16";
/** Pod addresses kwok hands out to pods that are not on the host network. */
export const POD_CIDR = "10.244.0.0/16";

export interface ClusterState {
  readonly dir: string;
  readonly kubeconfig: string;
  /**
   * The same cluster as a second user, `deployer` (also in system:masters), whom neither the controllers
   * nor kwok use: a test gives it to the engine, and an admission policy matching that user then refuses
   * the engine's requests alone.
   */
  readonly deployerKubeconfig: string;
  readonly server: string;
  readonly pids: Record<string, number>;
}

const STATE_FILE = "cluster.json";

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

/** Starts `binary` detached, its output in <dir>/logs/<name>.log; returns its PID. */
function start(dir: string, bin: string, name: string, binary: string, args: string[]): number {
  const log = fs.openSync(path.join(dir, "logs", `${name}.log`), "a");
  const child = spawn(path.join(bin, binary), args, { detached: true, stdio: ["ignore", log, log] });
  fs.closeSync(log);
  if (child.pid === undefined) throw new Error(`could not start ${binary}`);
  child.unref();
  started.set(child.pid, child);
  return child.pid;
}

/** Children this process started: an exited one is a zombie until reaped, which kill(pid, 0) counts as alive. */
const started = new Map<number, ChildProcess>();

function isAlive(pid: number): boolean {
  const child = started.get(pid);
  if (child !== undefined) return child.exitCode === null && child.signalCode === null;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The last lines a process logged, for an error message. */
export function logTail(dir: string, name: string, lines = 15): string {
  try {
    return fs
      .readFileSync(path.join(dir, "logs", `${name}.log`), "utf8")
      .trim()
      .split("\n")
      .slice(-lines)
      .join("\n");
  } catch {
    return "(no log)";
  }
}

export function readState(dir: string): ClusterState | undefined {
  const file = path.join(dir, STATE_FILE);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as ClusterState) : undefined;
}

/**
 * Starts the control plane in `dir` (which must hold no running cluster) and waits until the API server
 * is ready and the controllers and kwok run. `log` gets one line per component started.
 */
export async function startControlPlane(
  dir: string,
  bin: string,
  options: StageOptions & { log?: (line: string) => void } = {},
): Promise<ClusterState> {
  const log = options.log ?? (() => undefined);
  const running = readState(dir);
  if (running !== undefined && Object.values(running.pids).some(isAlive)) {
    throw new Error(`a cluster from ${dir} is still running: run \`npm run cluster -- down\` first`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  for (const sub of ["logs", "pki", "etcd"]) fs.mkdirSync(path.join(dir, sub), { recursive: true });

  const [token, deployerToken] = [randomBytes(24).toString("hex"), randomBytes(24).toString("hex")];
  fs.writeFileSync(
    path.join(dir, "pki", "tokens.csv"),
    `${token},admin,admin,system:masters\n${deployerToken},deployer,deployer,system:masters\n`,
    { mode: 0o600 },
  );
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const saKey = path.join(dir, "pki", "service-account.key");
  const saPub = path.join(dir, "pki", "service-account.pub");
  fs.writeFileSync(saKey, privateKey.export({ type: "pkcs1", format: "pem" }), { mode: 0o600 });
  fs.writeFileSync(saPub, publicKey.export({ type: "spki", format: "pem" }));
  fs.writeFileSync(path.join(dir, "stages.yaml"), stagesYaml(options));

  const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
  const server = `https://127.0.0.1:${apiPort}`;
  // The API server makes a self-signed serving certificate in --cert-dir; clients trust that file.
  const caFile = path.join(dir, "pki", "apiserver.crt");
  const kubeconfig = path.join(dir, "kubeconfig");
  fs.writeFileSync(kubeconfig, kubeconfigText(server, caFile, token), { mode: 0o600 });
  const deployerKubeconfig = path.join(dir, "deployer.kubeconfig");
  fs.writeFileSync(deployerKubeconfig, kubeconfigText(server, caFile, deployerToken, "deployer"), {
    mode: 0o600,
  });
  const pids: Record<string, number> = {};
  const state = () => ({ dir, kubeconfig, deployerKubeconfig, server, pids });
  const save = () => fs.writeFileSync(path.join(dir, STATE_FILE), JSON.stringify(state(), null, 2));

  const etcdUrl = `http://127.0.0.1:${etcdClient}`;
  pids.etcd = start(dir, bin, "etcd", "etcd", [
    "--name=local",
    `--data-dir=${path.join(dir, "etcd")}`,
    `--listen-client-urls=${etcdUrl}`,
    `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-cluster=local=http://127.0.0.1:${etcdPeer}`,
    // A throwaway test datastore: no fsync, so hundreds of objects write at memory speed.
    "--unsafe-no-fsync",
    "--log-level=warn",
  ]);
  save();
  log(`cluster: etcd on ${etcdUrl} (pid ${pids.etcd})`);

  pids["kube-apiserver"] = start(dir, bin, "kube-apiserver", "kube-apiserver", [
    `--etcd-servers=${etcdUrl}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${apiPort}`,
    `--cert-dir=${path.join(dir, "pki")}`,
    `--token-auth-file=${path.join(dir, "pki", "tokens.csv")}`,
    "--authorization-mode=RBAC",
    // calico-node runs privileged, as on EKS, whose API server allows it.
    "--allow-privileged=true",
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${saPub}`,
    `--service-account-signing-key-file=${saKey}`,
  ]);
  save();
  log(`cluster: kube-apiserver on ${server} (pid ${pids["kube-apiserver"]})`);

  await waitFor(
    "kube-apiserver to serve /readyz",
    async () => {
      if (!isAlive(pids["kube-apiserver"])) {
        throw new Error(`kube-apiserver exited:\n${logTail(dir, "kube-apiserver")}`);
      }
      if (!fs.existsSync(caFile)) return undefined;
      await new Api({ server, token, caFile }).get("/readyz");
      return true;
    },
    120_000,
  );

  const common = [`--kubeconfig=${kubeconfig}`, "--leader-elect=false", "--secure-port=0"];
  pids["kube-controller-manager"] = start(dir, bin, "kube-controller-manager", "kube-controller-manager", [
    ...common,
    `--service-account-private-key-file=${saKey}`,
    `--root-ca-file=${caFile}`,
  ]);
  pids["kube-scheduler"] = start(dir, bin, "kube-scheduler", "kube-scheduler", common);
  pids.kwok = start(dir, bin, "kwok", "kwok", [
    `--kubeconfig=${kubeconfig}`,
    "--manage-all-nodes=true",
    // kwok renews each node's Lease, the heartbeat the node lifecycle controller reads; that controller
    // then lifts the not-ready taint the API server puts on every new node, as for a real kubelet.
    "--node-lease-duration-seconds=40",
    `--cidr=${POD_CIDR}`,
    `--config=${path.join(dir, "stages.yaml")}`,
  ]);
  save();
  log(
    `cluster: kube-controller-manager (pid ${pids["kube-controller-manager"]}), kube-scheduler (pid ${pids["kube-scheduler"]}), kwok (pid ${pids.kwok})`,
  );
  await new Promise((resolve) => setTimeout(resolve, 2000));
  for (const [name, pid] of Object.entries(pids)) {
    if (!isAlive(pid)) throw new Error(`${name} exited at start:\n${logTail(dir, name)}`);
  }
  return state();
}

/** Stops the processes `dir`'s state file names (SIGTERM, then SIGKILL after 10 s); returns their names. */
export async function stopControlPlane(dir: string): Promise<string[]> {
  const state = readState(dir);
  if (state === undefined) return [];
  const alive = Object.entries(state.pids).filter(([, pid]) => isAlive(pid));
  for (const [, pid] of alive) process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (alive.some(([, pid]) => isAlive(pid)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const [, pid] of alive.filter(([, p]) => isAlive(p))) process.kill(pid, "SIGKILL");
  fs.rmSync(path.join(dir, STATE_FILE), { force: true });
  return alive.map(([name]) => name);
}
