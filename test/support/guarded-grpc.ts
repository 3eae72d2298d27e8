/**
 * The SDK's A2A gRPC service on 127.0.0.1 (a random port) behind an interceptor that lets a call through only when
 * `accept(authorization)` says so for the call's `authorization` metadata; else it answers UNAUTHENTICATED, as a
 * gRPC agent refusing its credentials does. Every call's metadata verdict is recorded.
 */
import type { DefaultRequestHandler } from '@a2a-js/sdk/server';

export interface GuardedGrpc {
  target: string;
  /** The `authorization` metadata of every call and whether it was let through. */
  calls: Array<{ authorization: string; accepted: boolean }>;
  serve(requestHandler: DefaultRequestHandler): Promise<void>;
  stop(): void;
}

export async function startGuardedGrpc(accept: (authorization: string) => boolean): Promise<GuardedGrpc> {
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService, UserBuilder } = await import('@a2a-js/sdk/server/grpc');
  const calls: GuardedGrpc['calls'] = [];
  const guard: import('@grpc/grpc-js').ServerInterceptor = (_method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next(
          new grpc.ServerListenerBuilder()
            .withOnReceiveMetadata((metadata, mdNext) => {
              const authorization = String(metadata.get('authorization')[0] ?? '');
              const accepted = accept(authorization);
              calls.push({ authorization, accepted });
              if (accepted) mdNext(metadata);
              else call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: 'a bearer token is required' });
            })
            .build(),
        ),
    });
  const server = new grpc.Server({ interceptors: [guard] });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    target: `127.0.0.1:${port}`,
    calls,
    serve: async (requestHandler) => void server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication })),
    stop: () => server.forceShutdown(),
  };
}
