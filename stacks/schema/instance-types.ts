/**
 * Which EC2 instance types exist: the ones in the instance table (components/cluster/eni-limits.ts, every
 * type EC2 listed in 17 commercial regions when it was recorded). A name it lacks is refused with the
 * nearest ones it has.
 */
import { ENI_LIMIT_ROWS } from "../../components/cluster/eni-limits";
import { closestNames, didYouMean } from "../suggest";

/** Every instance type of the table, in its order. */
export const INSTANCE_TYPES: readonly string[] = ENI_LIMIT_ROWS.flatMap(([, , types]) => types.split(" "));
const KNOWN = new Set(INSTANCE_TYPES);

// EC2 instance types: family, generation, attributes, then a size: t3.large, m7g.2xlarge, c6in.metal,
// c7i-flex.large, u7i-12tb.224xlarge. https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html
const INSTANCE_TYPE =
  /^[a-z]+[0-9]+[a-z0-9-]*\.(nano|micro|small|medium|large|xlarge|[0-9]+xlarge|metal(-[0-9]+xl)?)$/;

const NAMED_SIZES = ["nano", "micro", "small", "medium", "large", "xlarge"];

/** Smallest first: nano ... xlarge, then 2xlarge ... 224xlarge, then metal and metal-48xl. */
function sizeOrder(size: string): number {
  const named = NAMED_SIZES.indexOf(size);
  if (named >= 0) return named;
  const times = /^(\d+)xlarge$/.exec(size);
  if (times !== null) return NAMED_SIZES.length + Number(times[1]);
  const metal = /^metal(?:-(\d+)xl)?$/.exec(size);
  return metal !== null ? 10_000 + Number(metal[1] ?? 0) : 20_000;
}

/** The sizes the table lists for a family (`t3`: nano ... 2xlarge), smallest first. */
export function familySizes(family: string): string[] {
  return INSTANCE_TYPES.filter((type) => type.slice(0, type.indexOf(".")) === family)
    .map((type) => type.slice(type.indexOf(".") + 1))
    .sort((a, b) => sizeOrder(a) - sizeOrder(b));
}

/**
 * The rule an instance type name breaks, or undefined for a type of the table. A family the table has
 * gets its nearest size (t3.huge: t3.large) and the list of its sizes; any other name the nearest types.
 * A well-formed name also gets a hint: EC2 may have released it after the table was recorded.
 */
export function instanceTypeProblem(name: string): { rule: string; hint?: string } | undefined {
  if (KNOWN.has(name)) return undefined;
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
  if (!INSTANCE_TYPE.test(name)) {
    return {
      rule: `must be an EC2 instance type: family, generation and size, such as t3.large or m7g.2xlarge${didYouMean(suggestions)}${sizeList}`,
    };
  }
  return {
    rule: `is not an instance type EC2 offers (none of the ${INSTANCE_TYPES.length.toLocaleString("en-US")} in components/cluster/eni-limits.ts)${didYouMean(suggestions)}${sizeList}`,
    hint: "a type EC2 released after that table was recorded needs its row there first, from the VPC CNI's pkg/vpc/vpc_ip_resource_limit.go",
  };
}
