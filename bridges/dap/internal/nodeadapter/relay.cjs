// Run by node as the main module, before the program: it relays the Chrome
// DevTools Protocol between tether (file descriptors 3 and 4, one JSON
// message a line) and this process's own inspector, from a worker thread
// that stays responsive while the main thread is paused. No port is
// opened. When tether sends "tether.run" (its breakpoints are set), the
// program runs as the main module, from a macrotask: no frame of a module
// loader's is below it, so an exception it does not catch is one the
// inspector reports as uncaught.
'use strict';
(() => {
  const { Worker } = require('node:worker_threads');

const relay = `
const { parentPort } = require('node:worker_threads');
const inspector = require('node:inspector');
const fs = require('node:fs');
const send = (m) => { try { fs.writeSync(4, JSON.stringify(m) + '\\n'); } catch { process.exit(0); } };
const session = new inspector.Session();
session.connectToMainThread();
session.on('inspectorNotification', (m) => send({ method: m.method, params: m.params }));
let buf = '';
// A socket, not a file stream: a pending file read would hold the
// process open at its end.
const input = new (require('node:net').Socket)({ fd: 3, readable: true, writable: false });
input.on('error', () => {});
input.on('data', (chunk) => {
  buf += chunk;
  for (let i; (i = buf.indexOf('\\n')) >= 0;) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    let m;
    try { m = JSON.parse(line); } catch { continue; }
    if (m.method === 'tether.run') {
      send({ id: m.id, result: {} });
      parentPort.postMessage('run');
      continue;
    }
    session.post(m.method, m.params || {}, (err, result) => send(err
      ? { id: m.id, error: { message: String((err && err.message) || err) } }
      : { id: m.id, result: result || {} }));
  }
});
send({ method: 'tether.ready', params: {} });
`;

  // A CommonJS module with an inline source map pauses here before it is
  // compiled: tether reads the map from the file and sets the breakpoints
  // it leads to, which a map known only once the module runs would miss.
  const Module = require('node:module');
  const compile = Module.prototype._compile;
  function tetherInlineSourceMap(filename) {
    debugger; // eslint-disable-line no-debugger
    return filename;
  }
  Module.prototype._compile = function (content, filename) {
    if (typeof content === 'string' && content.includes('sourceMappingURL=data:')) {
      tetherInlineSourceMap(filename);
    }
    return compile.call(this, content, filename);
  };

  const worker = new Worker(relay, { eval: true, stdout: false, stderr: false });
  worker.once('message', () => {
    worker.unref();
    process.argv.splice(1, 1);
    process.argv[1] = require('node:path').resolve(process.argv[1]);
    setImmediate(() => require('node:module').runMain());
  });
})();
