export function Greeting(props: {name: string}) {
  return <div className="greeting">hello, {props.name</div>;
}
