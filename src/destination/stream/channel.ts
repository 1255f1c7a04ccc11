/**
 * A bounded queue between one producer and one consumer: `push` waits while the queue is full,
 * so a fast producer cannot fill memory; `fail` ends the consumer's iteration with an error.
 */
export class Channel<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private error: unknown = null;
  private wakeConsumer: (() => void) | null = null;
  private wakeProducer: (() => void) | null = null;

  constructor(private readonly capacity = 4) {}

  async push(item: T): Promise<void> {
    while (this.items.length >= this.capacity && !this.error) await new Promise<void>((resolve) => (this.wakeProducer = resolve));
    if (this.error) throw this.error;
    this.items.push(item);
    this.wake("consumer");
  }

  close(): void {
    this.closed = true;
    this.wake("consumer");
  }

  fail(error: unknown): void {
    this.error ??= error;
    this.wake("consumer");
    this.wake("producer");
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.error) throw this.error;
      const item = this.items.shift();
      if (item !== undefined) {
        this.wake("producer");
        yield item;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wakeConsumer = resolve));
    }
  }

  private wake(who: "consumer" | "producer"): void {
    const wake = who === "consumer" ? this.wakeConsumer : this.wakeProducer;
    if (who === "consumer") this.wakeConsumer = null;
    else this.wakeProducer = null;
    wake?.();
  }
}
