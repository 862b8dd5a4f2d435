// translate turns text into edits; it holds an error from before.

export function toTextEdit(text: string): string {
  return text.trim();
}

export function shout(text: string): string {
  return text.toUpperCase();
}

export const broken: number = "not a number";
