/**
 * The vCPUs an EC2 instance size's name states: 2 for large, 4 per xlarge (EC2 "Instance type
 * specifications", docs.aws.amazon.com/ec2/latest/instancetypes: m6i.large 2, m6i.4xlarge 16, and
 * m7i.metal-48xl as m7i.48xlarge, 192). Nano to medium state none (their vCPUs vary by family), nor does a
 * bare metal; a type with SMT off has fewer than its name states (hpc6a.48xlarge: 96).
 */

/** The vCPUs the size of `name` (m6i.4xlarge, or 4xlarge alone) states; undefined where it states none. */
export function vcpusByName(name: string): number | undefined {
  const size = name.slice(name.indexOf(".") + 1);
  if (size === "large") return 2;
  if (size === "xlarge") return 4;
  const times = /^(\d+)xlarge$|^metal-(\d+)xl$/.exec(size);
  return times === null ? undefined : 4 * Number(times[1] ?? times[2]);
}
