export function alone(): number {
  return 1;
}

export const other: number = "other";
