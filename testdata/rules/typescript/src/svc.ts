import { Injectable } from '@angular/core';
import type { User } from './models';

interface Config {
  timeout: number;
  retries?: number;
  name: string;
}

type Id = string | number;

enum Color { Red, Green = 'g', Blue }

@Injectable()
export class UserService {
  private cache: Map<string, User> = new Map();
  constructor(private readonly http: HttpClient) {}

  async get(id: Id): Promise<User | undefined> {
    const u = this.cache.get(String(id)) as User;
    if (!u) {
      const res: any = await this.http.get(`/users/${id}`);
      return res as User;
    }
    return u;
  }

  list(): User[] {
    return Array.from(this.cache.values()).filter((u: User) => u.active!);
  }
}

export function assertNever(x: never): never {
  throw new Error("Unexpected: " + x);
}

const handler = (e: Event): void => { console.log(e); };
let value: any = JSON.parse('{}');
function generic<T extends object>(arg: T): T { return arg; }
import { alpha, beta, gamma } from './barrel';
