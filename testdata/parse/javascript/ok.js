import { join } from "node:path";

export class Greeter {
  #count = 0;
  constructor(name) {
    this.name = name;
  }
  greet(...names) {
    this.#count++;
    return names.length ? `hello, ${names.join(", ")}` : `hello, ${this.name}`;
  }
}

export async function load(files) {
  const out = await Promise.all(files.map((f) => fetch(join("/", f))));
  return out.filter(Boolean);
}

const el = <div className="greeting">{new Greeter("x").greet()}</div>;
