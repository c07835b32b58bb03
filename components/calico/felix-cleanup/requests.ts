/** The API paths and the poll both the Felix cleanup (./index.ts) and its undoing (./restore.ts) use. */

/** Seconds between two reads of a rollout. */
export const POLL_SECONDS = 2;

export function daemonSetPath(namespace: string, name: string): string {
  return `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/daemonsets/${encodeURIComponent(name)}`;
}

export function podsPath(namespace: string, labels: Record<string, string>): string {
  const selector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods?labelSelector=${encodeURIComponent(selector)}`;
}

export function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, POLL_SECONDS * 1000));
}
