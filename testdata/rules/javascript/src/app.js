import React, { useState, useEffect } from 'react';
import { a, b as c } from './lib';
const fs = require('fs');

async function load(urls) {
  const results = await Promise.all(urls.map(async (u) => await fetch(u)));
  console.log('loaded', results.length);
  return results;
}

function sync() {
  const x = await something();
  for (let i = 0; i < 3; i++) {
    console.debug(i);
  }
  try {
    risky();
  } catch (err) {
    console.error(err);
  }
  console.error('outside');
  var old = 1;
  if (x == null) { return; }
  if (x === undefined) { return x; }
  return old;
}

class Widget extends React.Component {
  state = { n: 0 };
  render() {
    return <div onClick={() => this.setState({ n: 1 })}>{this.state.n}</div>;
  }
  async refresh() {
    await this.load();
  }
}

const arrow = async () => { await sleep(1); };
export default Widget;
export const helper = (a, b) => a + b;
setTimeout(() => { console.log('later'); }, 100);
const fs2 = require("fs");
function plain() { return 1; }
async function fancy() { return 2; }
call(a, b,);
call(a, b);
try { a(); } catch (e) { b(); } finally { c(); }
