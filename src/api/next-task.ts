// Yields to the event loop: long work split into tasks lets the page handle input and paint in between.

/**
 * Resolves in a task of its own. A message, where there is MessageChannel: browsers hold nested timers back by 4 ms
 * or more, a message not at all.
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof MessageChannel !== 'function') return void setTimeout(resolve, 0);
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(0);
  });
}
