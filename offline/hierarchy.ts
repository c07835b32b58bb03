/** The parent-child structure of an evaluated stack, and the stable orders the plan files use. */
import type { ResourceRecord } from "./records";

/** Code-unit order: the same on every machine and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function byTypeAndName(a: ResourceRecord, b: ResourceRecord): number {
  return compare(a.type, b.type) || compare(a.name, b.name) || compare(a.urn, b.urn);
}

/** Parent-child structure of an evaluation. */
export class Hierarchy {
  readonly byUrn: Map<string, ResourceRecord>;
  readonly children = new Map<string, ResourceRecord[]>();
  readonly roots: ResourceRecord[] = [];

  constructor(readonly resources: readonly ResourceRecord[]) {
    this.byUrn = new Map(resources.map((r) => [r.urn, r]));
    for (const r of resources) {
      if (r.parent !== undefined && this.byUrn.has(r.parent)) {
        const siblings = this.children.get(r.parent) ?? [];
        siblings.push(r);
        this.children.set(r.parent, siblings);
      } else {
        this.roots.push(r);
      }
    }
  }

  childrenOf(urn: string): ResourceRecord[] {
    return [...(this.children.get(urn) ?? [])].sort(byTypeAndName);
  }

  /** Parent, grandparent, ... up to the stack. */
  ancestors(record: ResourceRecord): ResourceRecord[] {
    const chain: ResourceRecord[] = [];
    for (let p = this.parentOf(record); p !== undefined; p = this.parentOf(p)) chain.push(p);
    return chain;
  }

  descendantCount(urn: string): number {
    return (this.children.get(urn) ?? []).reduce((n, child) => n + 1 + this.descendantCount(child.urn), 0);
  }

  /** The record itself if it is a component (or the stack), else its nearest component ancestor. */
  owner(record: ResourceRecord): ResourceRecord {
    return record.custom ? (this.ancestors(record).find((a) => !a.custom) ?? record) : record;
  }

  private parentOf(record: ResourceRecord): ResourceRecord | undefined {
    return record.parent === undefined ? undefined : this.byUrn.get(record.parent);
  }
}

export function isComponent(r: ResourceRecord): boolean {
  return !r.custom && r.type !== "pulumi:pulumi:Stack";
}
