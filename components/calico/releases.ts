/**
 * The Calico releases published on each supported line: the release tags of projectcalico/calico
 * (vX.Y.Z; the vX.Y.0-0.dev tags mark where a line's development began and are no releases), each tag's
 * manifests/calico.yaml pinning quay.io/calico/node at that tag. Read from the repository in August 2026
 * (newest commit 87c15906, 22 Aug 2026): v3.31.7 was tagged on 20 Aug 2026, v3.32.1 on 24 Jun 2026.
 * A release published since needs its row here before a stack can pin it.
 */
import { SUPPORTED_CALICO_MINORS, type CalicoMinor, calicoMinorOf } from "./defaults";

export const CALICO_RELEASES: Readonly<Record<CalicoMinor, readonly string[]>> = {
  "3.31": ["v3.31.0", "v3.31.1", "v3.31.2", "v3.31.3", "v3.31.4", "v3.31.5", "v3.31.6", "v3.31.7"],
  "3.32": ["v3.32.0", "v3.32.1"],
};

/** The releases of `version`'s line, or none when the line is not supported. */
export function releasesOfLine(version: string): readonly string[] {
  const minor = calicoMinorOf(version);
  const line = SUPPORTED_CALICO_MINORS.find((supported) => supported === minor);
  return line === undefined ? [] : CALICO_RELEASES[line];
}

/** True for a release that projectcalico/calico has published on a supported line. */
export function isPublishedCalicoRelease(version: string): boolean {
  return releasesOfLine(version).includes(version);
}
