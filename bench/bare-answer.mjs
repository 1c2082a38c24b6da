// A bare Node HTTP server that answers every request with the same number of bytes: how fast this machine's loopback
// and the load tool carry an answer of that size, with no service behind it. Run by bench/service.mjs as a child.
// Usage: node bench/bare-answer.mjs <bytes>   (prints "listening on <url>")
import { createServer } from 'node:http';

const body = Buffer.alloc(Number(process.argv[2]), 'x');
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
