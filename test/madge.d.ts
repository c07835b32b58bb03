/**
 * The part of madge's API (its README, "API" and "Configuration") test/layout.test.ts and bench/reachable.ts
 * use; madge has no types.
 */
declare module "madge" {
  interface MadgeConfig {
    /** The folder the paths in the results are relative to. */
    baseDir?: string;
    fileExtensions?: string[];
    /** A tsconfig file (or its contents) to resolve imports with. */
    tsConfig?: string | object;
  }

  interface MadgeResult {
    /** Each file and the files it imports, as paths relative to baseDir. */
    obj(): Record<string, string[]>;
    /** Each circle of imports, as the files on it. */
    circular(): string[][];
    /** `skipped`: imports madge could not resolve to a file. */
    warnings(): { skipped: string[] };
  }

  function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
  export = madge;
}
