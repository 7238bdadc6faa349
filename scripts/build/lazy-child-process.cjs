// Stands in for node:child_process inside the bundled commander (scripts/build.mjs).
// Commander requires it at load time for executable subcommands, which pdfsvc
// has none of; loading it pulls in net, dgram, streams and more, a few
// milliseconds of every run. The real module is loaded on first use.
module.exports = new Proxy(
  {},
  {
    get(_target, name) {
      return require('node:child_process')[name];
    },
  },
);
