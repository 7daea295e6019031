// The same package from a CommonJS TypeScript module: resolved through the
// "require" condition of the exports, to dist/cjs and its declarations.
import { CreativeOps, CreativeOpsError, verifyWebhook } from "@creativeops/client";
import type { Creator } from "@creativeops/client";

export function make(key: string): CreativeOps {
  return new CreativeOps({ apiKey: key, baseUrl: "http://localhost:8080", transport: "grpc" });
}

export async function name(co: CreativeOps, id: string): Promise<string> {
  try {
    const c: Creator = await co.creators.get(id);
    return c.name;
  } catch (e) {
    if (e instanceof CreativeOpsError && e.httpStatus === 404) return "";
    throw e;
  }
}

export const verify = verifyWebhook;
