/** A request's JSON body, read whole and parsed: what the bench's bare Koa servers do with a body. */
export async function jsonBody<T>(req: NodeJS.ReadableStream): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}
