import * as React from "react";

type Props = { name: string; items: string[] };

export function Greeting({ name, items }: Props): JSX.Element {
  const [count, setCount] = React.useState<number>(0);
  return (
    <div className="greeting" onClick={() => setCount(count + 1)}>
      <h1>hello, {name}</h1>
      <ul>
        {items.map((i) => (
          <li key={i}>{i}</li>
        ))}
      </ul>
    </div>
  );
}
