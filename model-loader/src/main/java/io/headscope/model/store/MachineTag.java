package io.headscope.model.store;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Eight hex digits that name where this process's PID means something: the host name, the kernel's boot
 * id (a rebooted machine reuses PIDs) and the PID namespace (a container has PIDs of its own). Two
 * processes with the same tag see each other's PIDs; with different tags, a PID says nothing.
 */
final class MachineTag {
  private MachineTag() {}

  static String current() {
    String identity = hostName() + "|" + read("/proc/sys/kernel/random/boot_id") + "|" + pidNamespace();
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(h, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static String hostName() {
    String env = System.getenv("HOSTNAME");
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException | RuntimeException e) {
      return env == null ? "" : env;
    }
  }

  private static String pidNamespace() {
    try {
      return Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString(); // pid:[4026531836]
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return ""; // not Linux: the host name and boot id stand alone
    }
  }

  private static String read(String file) {
    try {
      return Files.readString(Path.of(file)).trim();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
