package io.headscope.model.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the operating system says this process holds: resident memory and native threads (Java's and
 * PyTorch's), from {@code /proc/self/status}. Linux only; elsewhere both read as -1.
 */
public record ProcessStats(long rssKb, int threads) {

  public static ProcessStats now() {
    long rss = -1;
    int threads = -1;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
        } else if (line.startsWith("Threads:")) {
          threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux: unknown
    }
    return new ProcessStats(rss, threads);
  }

  public static boolean available() {
    return Files.isReadable(Path.of("/proc/self/status"));
  }

  public double rssMb() {
    return rssKb / 1024.0;
  }
}
