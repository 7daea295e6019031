// dist/cjs holds CommonJS: tell Node so, since the package itself is "type": "module".
import { writeFileSync } from "node:fs";
writeFileSync(new URL("../dist/cjs/package.json", import.meta.url), JSON.stringify({ type: "commonjs" }) + "\n");
