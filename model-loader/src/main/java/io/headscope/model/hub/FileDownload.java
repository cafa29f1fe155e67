package io.headscope.model.hub;

import io.headscope.model.HeadScopeException;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One file from the Hub: asks for its checksum (HEAD), downloads into a hidden {@code .part} file
 * next to its place in the cache, resumes with a {@code Range} request when the connection drops,
 * checks size and hash, and only then renames it into place. A file that fails the check is deleted.
 *
 * <p>Redirects are followed by hand: the Hub answers an LFS file with a redirect to its CDN whose
 * headers carry the checksum ({@code X-Linked-Etag}, {@code X-Linked-Size}), which an automatic
 * redirect would hide.
 */
final class FileDownload {
  /** Tries per file; each retry resumes where the last one stopped. */
  static final int ATTEMPTS = 4;
  private static final int MAX_REDIRECTS = 5;
  private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+|\\*)");

  private final HttpClient http;
  private final HubModelId id;
  private final String file;
  private final URI url;
  private final Path dir;
  private final ProgressListener progress;

  /** Where to GET the content and what it must hash to. */
  private record Meta(URI content, ExpectedHash expected) {}

  FileDownload(HttpClient http, HubModelId id, String file, URI url, Path dir, ProgressListener progress) {
    this.http = http;
    this.id = id;
    this.file = file;
    this.url = url;
    this.dir = dir;
    this.progress = progress;
  }

  /** Whether the repo has this file (a HEAD request; nothing is downloaded). */
  boolean exists() {
    return head() != null;
  }

  /** Downloads, verifies and publishes the file; false when the repo has no such file. */
  boolean run() {
    Meta meta = head();
    if (meta == null) {
      return false;
    }
    Path part = dir.resolve("." + file + "." + meta.expected().tag() + ".part");
    IOException last = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        transfer(meta, part);
        last = null;
        break;
      } catch (IOException e) {
        last = e; // keep the part: the next attempt resumes from its end
      }
    }
    if (last != null) {
      throw new HeadScopeException("Downloading " + file + " of " + id + " failed " + ATTEMPTS + " times (" + last
          + "); the " + sizeOf(part) + " bytes received are kept in the cache and the next run resumes from there.",
          last);
    }
    verifyAndPublish(meta.expected(), part);
    return true;
  }

  private void verifyAndPublish(ExpectedHash expected, Path part) {
    String mismatch;
    try {
      MessageDigest digest = expected.newDigest();
      if (digest != null) {
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(part)) {
          for (int n; (n = in.read(buf)) > 0; ) {
            digest.update(buf, 0, n);
          }
        }
      }
      mismatch = expected.mismatch(digest, Files.size(part));
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the downloaded " + part + ": " + e.getMessage() + ".", e);
    }
    if (mismatch != null) {
      SafeFiles.deleteTree(part);
      throw new HeadScopeException(file + " downloaded from " + id + " does not match the Hub's checksum ("
          + mismatch + "); it was deleted and nothing was cached. Try again; if this repeats, the server at "
          + url.getHost() + " is sending a damaged file.");
    }
    try {
      SafeFiles.publish(part, dir.resolve(file));
    } catch (IOException e) {
      throw new HeadScopeException("Cannot move " + file + " into the cache " + dir + ": " + e.getMessage() + ".", e);
    }
  }

  // --- HTTP ----------------------------------------------------------------------------------

  /** The checksum and the content address, or null when the repo has no such file. */
  private Meta head() {
    URI u = url;
    for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
      HttpResponse<Void> r = send(HubClient.request(u).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.discarding());
      int status = r.statusCode();
      if (status == 404) {
        String code = HubClient.header(r, "X-Error-Code").orElse("");
        if (code.equals("RepositoryNotFound")) {
          throw new HeadScopeException(id + " does not exist on " + url.getHost() + " (or it is private).");
        }
        if (code.equals("RevisionNotFound")) {
          throw new HeadScopeException(id.repo() + " has no revision \"" + id.revision() + "\".");
        }
        return null;
      }
      if (status == 401 || status == 403) {
        throw new HeadScopeException(url.getHost() + " refused " + id + " (HTTP " + status + "): the model does not "
            + "exist, or it is private or gated; HeadScope downloads public models only.");
      }
      String linkedEtag = HubClient.header(r, "X-Linked-Etag").orElse(null);
      long linkedSize = longHeader(r, "X-Linked-Size").orElse(-1);
      if (status >= 300 && status < 400) {
        URI next = location(u, r);
        if (linkedEtag != null) {
          return new Meta(next, ExpectedHash.fromEtag(linkedEtag, linkedSize)); // LFS file on the CDN
        }
        u = next; // a renamed repo: ask again at the new address
        continue;
      }
      if (status >= 200 && status < 300) {
        String etag = linkedEtag != null ? linkedEtag : HubClient.header(r, "ETag").orElse(null);
        long size = linkedEtag != null ? linkedSize : longHeader(r, "Content-Length").orElse(-1);
        return new Meta(u, ExpectedHash.fromEtag(etag, size));
      }
      throw new HeadScopeException(url.getHost() + " answered HTTP " + status + " for " + u + ".");
    }
    throw new HeadScopeException(url.getHost() + " redirected " + url + " more than " + MAX_REDIRECTS + " times.");
  }

  /** Brings {@code part} up to the full length, resuming from its current end where the server allows. */
  private void transfer(Meta meta, Path part) throws IOException {
    long size = meta.expected().size();
    long have = sizeOf(part);
    if (size >= 0 && have > size) {
      Files.delete(part); // longer than the file: not a prefix of it
      have = 0;
    }
    if (size >= 0 && have == size) {
      return; // complete from an earlier run; verified next
    }
    URI u = meta.content();
    for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
      HttpRequest.Builder req = HubClient.request(u).GET();
      if (have > 0) {
        req.header("Range", "bytes=" + have + "-");
      }
      HttpResponse<TimedBody> r = send(req.build(), TimedBody.handler(stallSeconds()));
      int status = r.statusCode();
      TimedBody body = r.body();
      if (status < 200 || status > 299) {
        body.cancel(); // a redirect's or an error's body is not wanted
      }
      if (status >= 300 && status < 400) {
        u = location(u, r);
        continue;
      }
      if (status == 416) {
        Files.deleteIfExists(part); // the part does not fit the file any more: start over
        throw new IOException("the server refused to resume (HTTP 416); starting over");
      }
      boolean append = false;
      if (status == 206) {
        Matcher m = CONTENT_RANGE.matcher(HubClient.header(r, "Content-Range").orElse(""));
        append = m.matches() && Long.parseLong(m.group(1)) == have;
        if (!append) {
          body.cancel();
          Files.deleteIfExists(part);
          throw new IOException("the server resumed at the wrong place; starting over");
        }
      } else if (status != 200) {
        throw new HeadScopeException(u.getHost() + " answered HTTP " + status + " when downloading " + file
            + " of " + id + ".");
      }
      copy(body, part, append ? have : 0, size);
      long got = sizeOf(part);
      if (size >= 0 && got < size) {
        throw new IOException("the connection closed after " + got + " of " + size + " bytes");
      }
      return;
    }
    throw new HeadScopeException(u.getHost() + " redirected " + file + " more than " + MAX_REDIRECTS + " times.");
  }

  private void copy(TimedBody body, Path part, long start, long size) throws IOException {
    StandardOpenOption mode = start > 0 ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING;
    long done = start;
    double reported = -1;
    try (FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE, mode)) {
      for (ByteBuffer chunk; (chunk = body.next()) != null; ) {
        done += chunk.remaining();
        while (chunk.hasRemaining()) {
          out.write(chunk);
        }
        double fraction = size > 0 ? (double) done / size : -1;
        if (fraction < 0 || fraction - reported >= 0.01) {
          reported = fraction;
          progress.progress(String.format(Locale.ROOT, "Downloading %s of %s (%.1f of %s MB)", file, id,
              done / 1e6, size > 0 ? String.format(Locale.ROOT, "%.1f", size / 1e6) : "?"), Math.min(fraction, 0.999));
        }
      }
    } catch (IOException e) {
      body.cancel();
      throw e;
    }
  }

  /** How long a download may receive nothing before it is retried: {@code -Dheadscope.hubStallSeconds}, default 60. */
  static long stallSeconds() {
    try {
      return Math.max(1, Long.parseLong(System.getProperty("headscope.hubStallSeconds", "60")));
    } catch (NumberFormatException e) {
      return 60;
    }
  }

  private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    try {
      return http.send(request, handler);
    } catch (ConnectException e) {
      throw new HeadScopeException("Cannot reach " + request.uri().getHost() + " to download " + id
          + " (no connection); use --offline to work with cached models only.", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot reach " + request.uri().getHost() + " to download " + id + ": " + e
          + ".", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HeadScopeException("The download of " + id + " was interrupted.", e);
    }
  }

  /** The redirect target, refused unless it is HTTPS (or loopback HTTP, for tests). */
  private URI location(URI from, HttpResponse<?> r) {
    String loc = HubClient.header(r, "Location").orElseThrow(() -> new HeadScopeException(
        from.getHost() + " sent a redirect without a Location for " + file + " of " + id + "."));
    URI next = from.resolve(loc);
    String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
    if (next.getHost() == null
        || !(scheme.equals("https") || scheme.equals("http") && HubClient.isLoopback(next.getHost()))) {
      throw new HeadScopeException(from.getHost() + " redirected " + file + " of " + id + " to " + loc
          + ", which is not HTTPS; refusing to download it.");
    }
    return next;
  }

  private static OptionalLong longHeader(HttpResponse<?> r, String name) {
    try {
      return r.headers().firstValue(name).map(v -> OptionalLong.of(Long.parseLong(v.trim())))
          .orElse(OptionalLong.empty());
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static long sizeOf(Path p) {
    try {
      return Files.exists(p) ? Files.size(p) : 0;
    } catch (IOException e) {
      return 0;
    }
  }
}
