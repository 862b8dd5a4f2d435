import { Shape, Square, total } from "./shapes";

export function big(): Square {
  const sq = new Square(10);
  return sq;
}

export function run(): number {
  const items: Shape[] = [big(), new Square(1)];
  return total(items);
}
