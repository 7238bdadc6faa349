// A stand-in for a Node built-in module that loads it on first use
// (scripts/build.mjs puts it where the bundle requires the module): a short
// run that never uses node:crypto, say, need not load its twenty internal
// modules. The bundles reach named imports as properties at the time of the
// call, so the stand-in behaves as the module does.
module.exports = function lazyModule(load) {
  let loaded;
  const real = () => {
    loaded ??= load();
    return loaded;
  };
  return new Proxy(
    {},
    {
      get: (_target, key) => real()[key],
      has: (_target, key) => key in real(),
      ownKeys: () => Reflect.ownKeys(real()),
      getOwnPropertyDescriptor: (_target, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
        // A proxy may not report a property its (empty) target lacks as non-configurable.
        return descriptor && { ...descriptor, configurable: true };
      },
    },
  );
};
