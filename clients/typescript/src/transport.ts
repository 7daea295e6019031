import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import type { ContextValues, Interceptor, StreamResponse, Transport, UnaryResponse } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { NoResponse } from "./errors.js";

/** How RPCs travel: Connect (default; browsers and Node), gRPC-Web, or native gRPC over HTTP/2 (Node only). */
export type TransportKind = "connect" | "grpc-web" | "grpc";

export function createTransport(kind: TransportKind, baseUrl: string, interceptors: Interceptor[]): Transport {
  switch (kind) {
    case "connect":
      return createConnectTransport({ baseUrl, interceptors, fetch: fetchMarkingFailures });
    case "grpc-web":
      return createGrpcWebTransport({ baseUrl, interceptors, fetch: fetchMarkingFailures });
    case "grpc":
      return lazyTransport(async () => {
        // Loaded on first use, by a name bundlers do not follow, so that
        // browser bundles never pull in Node's http2.
        const name = "@connectrpc/connect-node";
        const node = (await import(name)) as typeof import("@connectrpc/connect-node");
        // The server speaks HTTP/2 without TLS (h2c) on its one port for
        // http:// URLs, and HTTP/2 over TLS for https:// ones.
        return node.createGrpcTransport({ baseUrl, interceptors });
      });
    default:
      throw new TypeError(`transport: must be "connect", "grpc-web" or "grpc", got ${JSON.stringify(kind)}`);
  }
}

/**
 * fetch, whose rejections (no HTTP answer: refused, reset, DNS, TLS, a
 * browser's CORS refusal or offline state) are marked as connection
 * failures, so the client can tell them from the errors of an answer.
 * An abort stays an abort.
 */
const fetchMarkingFailures: typeof fetch = async (input, init) => {
  try {
    return await globalThis.fetch(input, init);
  } catch (err) {
    if (init?.signal?.aborted) {
      throw err;
    }
    throw new NoResponse("connection", err instanceof Error ? err.message : String(err), err);
  }
};

function lazyTransport(load: () => Promise<Transport>): Transport {
  let loading: Promise<Transport> | undefined;
  const get = () => (loading ??= load());
  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      return (await get()).unary(method, signal, timeoutMs, header, input, contextValues);
    },
    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      return (await get()).stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
}
