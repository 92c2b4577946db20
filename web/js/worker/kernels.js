// Which wasm kernel this browser runs. Each build named in build-info.json (best first: relaxed
// SIMD, plain SIMD, scalar; same results, slower) is validated and instantiated, and the first
// that works is used; the page is told, in words, when that is not the best one and why.
import { Msg, reason } from "./messages.js";
import { abs, fetchBytes, fetchWhy } from "./fetching.js";

const kernelName = (key) => ({ key: `file.kernel.${key}` });

// params: the page's address (?kernel=scalar|simd or ?nosimd=1 force a build: tests, curious readers)
export async function loadKernel(info, params) {
  const choice = params.get("kernel");
  const forced = Boolean(choice) || params.get("nosimd") === "1";
  const order = info.kernel_order; // [[name, label]] best first
  let candidates = order;
  if (choice === "scalar" || params.get("nosimd") === "1") candidates = order.slice(-1);
  else if (choice === "simd") candidates = order.slice(1);
  const problems = [];
  for (const [key] of candidates) {
    try {
      const bytes = await fetchBytes(abs(info.kernels[key]), `kernel.${key}`);
      if (!WebAssembly.validate(bytes)) {
        problems.push({ key: "err.kernel_problem", args: { kernel: kernelName(key), why: { key: "err.kernel_unsupported" } } });
        continue;
      }
      const { instance } = await WebAssembly.instantiate(bytes, {});
      return { exports: instance.exports, name: key + ".wasm", notice: notice(key, order, forced, problems) };
    } catch (e) {
      problems.push({ key: "err.kernel_problem", args: { kernel: kernelName(key), why: reason(e) } });
    }
  }
  throw new Msg("no_kernel", { problems });
}

// what the page says about the build in use: nothing for the best, else why not the best
function notice(key, order, forced, problems) {
  if (forced) return { key: "kernel_by_address", args: { kernel: kernelName(key) } };
  if (key === order[0][0]) return null;
  return { key: key === order[order.length - 1][0] ? "kernel_fallback_scalar" : "kernel_fallback",
           args: { kernel: kernelName(key), problems } };
}

// The comparison kernels of chapter 2's speed race: the scalar build, and the build whose products
// are plain JavaScript (jsMatvec: the module's import, started with the worker).
export async function loadComparisonKernels(info, jsMatvec) {
  const out = {};
  const scalar = await WebAssembly.instantiate(await fetchBytes(abs(info.kernels.kernel_scalar), "kernel.kernel_scalar"), {});
  out.scalar = scalar.instance.exports;
  let mem = null;
  const { jsMatmatImports } = await jsMatvec.catch((e) => { throw new Msg("file_problem", { name: "jsmatvec.js", why: fetchWhy(e) }); });
  const js = await WebAssembly.instantiate(await fetchBytes(abs(info.kernels.kernel_jsmatvec), "kernel.kernel_jsmatvec"),
    { env: jsMatmatImports(() => mem) });
  mem = js.instance.exports.memory;
  out.js = js.instance.exports;
  return out;
}
