/** Anything with an area. */
export interface Shape {
  area(): number;
}

/** A shape with equal sides. */
export class Square implements Shape {
  constructor(public side: number) {}

  area(): number {
    return this.side * this.side;
  }
}

/** Sums the areas of shapes. */
export function total(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}
