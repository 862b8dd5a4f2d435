import { toTextEdit } from "./translate";

export function complete(word: string): string {
  return toTextEdit(word);
}

export const wrong: boolean = "yes";
