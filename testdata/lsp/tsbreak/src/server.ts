import { shout, toTextEdit } from "./translate";

export function serve(lines: string[]): string[] {
  return lines.map((l) => toTextEdit(l));
}

export function again(): string {
  return shout(toTextEdit(" x "));
}

export const unused: string = 42;
