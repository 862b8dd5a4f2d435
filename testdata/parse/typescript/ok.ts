import type { Readable } from "stream";

export interface Named {
  readonly name: string;
  tags?: string[];
}

export class Greeter<T extends Named> {
  private count = 0;
  constructor(private readonly who: T) {}

  greet(...names: string[]): string {
    this.count++;
    return names.length > 0 ? `hello, ${names.join(", ")}` : `hello, ${this.who.name}`;
  }
}

export type Pair<A, B = A> = [A, B];

export function first<T>(xs: readonly T[]): T | undefined {
  return xs[0] as T | undefined;
}

enum Color { Red, Green = "green" }
