package io.headscope.model.hub;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A response body read chunk by chunk with a stall limit. HttpClient has no read timeout for a body
 * (its own InputStream waits forever, and an interrupt does not wake it), so a server that stops
 * sending without closing the connection would hang the download; here each wait for the next chunk
 * is bounded, and a stall cancels the response and counts as a dropped connection (then resumed).
 */
final class TimedBody implements HttpResponse.BodySubscriber<TimedBody> {
  private static final Object END = new Object();

  private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  private final long stallSeconds;
  private volatile Flow.Subscription subscription;
  private Iterator<ByteBuffer> current = Collections.emptyIterator();

  TimedBody(long stallSeconds) {
    this.stallSeconds = stallSeconds;
  }

  static HttpResponse.BodyHandler<TimedBody> handler(long stallSeconds) {
    return info -> new TimedBody(stallSeconds);
  }

  @Override
  public CompletionStage<TimedBody> getBody() {
    return CompletableFuture.completedFuture(this); // hand it over with the headers; read on demand
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    queue.add(item);
  }

  @Override
  public void onError(Throwable t) {
    queue.add(t);
  }

  @Override
  public void onComplete() {
    queue.add(END);
  }

  /** Nothing arrived within the wait. */
  static final class NoData extends IOException {
    NoData(String message) {
      super(message);
    }
  }

  /** The next chunk of the body, or null at its end. */
  ByteBuffer next() throws IOException {
    return next(TimeUnit.SECONDS.toNanos(stallSeconds));
  }

  /** The next chunk, waiting at most {@code timeoutNanos} for it (a timeout cancels the body). */
  @SuppressWarnings("unchecked")
  ByteBuffer next(long timeoutNanos) throws IOException {
    while (!current.hasNext()) {
      Object o;
      try {
        o = queue.poll(timeoutNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        cancel();
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("download interrupted");
      }
      if (o == null) {
        cancel();
        throw new NoData("no data arrived for " + stallSeconds + " s");
      }
      if (o == END) {
        queue.add(END); // stay at the end
        return null;
      }
      if (o instanceof Throwable t) {
        throw t instanceof IOException io ? io : new IOException(t);
      }
      current = ((List<ByteBuffer>) o).iterator();
      subscription.request(1);
    }
    return current.next();
  }

  /** Stops the transfer (the rest of the body is not wanted). */
  void cancel() {
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
  }
}
