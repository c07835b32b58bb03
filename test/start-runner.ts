/** `npm start`'s main run in process, with what it printed captured. */
import { main } from "../scripts/start";

export interface StartRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs npm start's main with `args`; resolves with its exit status and what it printed. */
export async function runStart(...args: string[]): Promise<StartRun> {
  const out: string[] = [];
  const err: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const log = console.log;
  const error = console.error;
  process.stdout.write = (chunk: string) => out.push(String(chunk)) > 0;
  console.log = (...a: unknown[]) => out.push(`${a.join(" ")}\n`);
  console.error = (...a: unknown[]) => err.push(`${a.join(" ")}\n`);
  try {
    const code = await main(args);
    return { code, out: out.join(""), err: err.join("") };
  } finally {
    process.stdout.write = write;
    console.log = log;
    console.error = error;
  }
}
