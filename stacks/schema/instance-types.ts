/**
 * Which EC2 instance types the stack knows: the ones in the instance table (components/cluster/eni-limits.ts,
 * every type EC2 listed in 17 commercial regions when it was recorded). A name that is no instance type
 * name is refused with the nearest ones the table has; a well-formed name it lacks is warned about, since
 * EC2 releases types after the table was recorded, and EC2 answers at `up`.
 */
import { ENI_LIMIT_ROWS } from "../../components/cluster/eni-limits";
import { vcpusByName } from "../../components/cluster/instance-sizes";
import { closestNames, didYouMean } from "../suggest";

/** Every instance type of the table, in its order. */
export const INSTANCE_TYPES: readonly string[] = ENI_LIMIT_ROWS.flatMap(([, , types]) => types.split(" "));
const KNOWN = new Set(INSTANCE_TYPES);

// EC2 instance types: family, generation, attributes, then a size: t3.large, m7g.2xlarge, c6in.metal,
// c7i-flex.large, u7i-12tb.224xlarge. https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html
const INSTANCE_TYPE =
  /^[a-z]+[0-9]+[a-z0-9-]*\.(nano|micro|small|medium|large|xlarge|[0-9]+xlarge|metal(-[0-9]+xl)?)$/;

const NAMED_SIZES = ["nano", "micro", "small", "medium"];

/** Smallest first: nano ... medium, then by the vCPUs the name states (large ... 224xlarge), then metal. */
function sizeOrder(size: string): number {
  const named = NAMED_SIZES.indexOf(size);
  if (named >= 0) return named;
  const vcpus = vcpusByName(size) ?? 0;
  return size.startsWith("metal") ? 100_000 + vcpus : NAMED_SIZES.length + vcpus;
}

/** The sizes the table lists for a family (`t3`: nano ... 2xlarge), smallest first. */
export function familySizes(family: string): string[] {
  return INSTANCE_TYPES.filter((type) => type.slice(0, type.indexOf(".")) === family)
    .map((type) => type.slice(type.indexOf(".") + 1))
    .sort((a, b) => sizeOrder(a) - sizeOrder(b));
}

/** The table's source and date, for messages. */
export const INSTANCE_TABLE =
  "components/cluster/eni-limits.ts (the types EC2 listed in August 2026, as amazon-vpc-cni-k8s records them)";

/** The nearest types the table has, and the sizes it lists for the name's family. */
function nearest(name: string): string {
  const dot = name.indexOf(".");
  const family = dot > 0 ? name.slice(0, dot) : name;
  const sizes = familySizes(family);
  // A family without a size (t3) gets the list of its sizes, not a guess at one.
  const suggestions =
    sizes.length === 0
      ? closestNames(name, INSTANCE_TYPES)
      : dot > 0
        ? closestNames(
            name,
            sizes.map((size) => `${family}.${size}`),
            { maxDistance: Infinity, limit: 1 },
          )
        : [];
  const sizeList = sizes.length > 0 ? ` (${family} comes in ${sizes.join(", ")})` : "";
  return `${didYouMean(suggestions)}${sizeList}`;
}

/**
 * The rule a name breaks that is no instance type name (family, generation and size), with the nearest
 * types the table has (t3.huge: t3.large, and t3's sizes); undefined for a well-formed name.
 */
export function instanceTypeProblem(name: string): { rule: string } | undefined {
  if (KNOWN.has(name) || INSTANCE_TYPE.test(name)) return undefined;
  return {
    rule: `must be an EC2 instance type: family, generation and size, such as t3.large or m7g.2xlarge${nearest(name)}`,
  };
}

/**
 * The warning for a well-formed name the table lacks: a type EC2 released since, or a typo. EC2 answers
 * at `up`; what the table's limits decide (its pods' addresses, its max pods) is not checked for it.
 */
export function unknownInstanceTypeNotice(path: string, name: string): string | undefined {
  if (KNOWN.has(name) || !INSTANCE_TYPE.test(name)) return undefined;
  return `${path}: ${name} is not in ${INSTANCE_TABLE}. If EC2 released it since, EC2 answers at \`up\`, and its pods' addresses and max pods are not checked here${nearest(name)}`;
}
