package io.headscope.model.store;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** File operations that never leave half-written results or write outside their target. */
public final class SafeFiles {
  private SafeFiles() {}

  /**
   * The absolute path with its deepest existing ancestor resolved through links, so a path named through a
   * link into a folder, or not existing yet, is still seen inside that folder.
   */
  public static Path realPath(Path abs) {
    Path existing = abs;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return abs;
    }
    try {
      return existing.toRealPath().resolve(existing.relativize(abs)).normalize();
    } catch (IOException e) {
      return abs;
    }
  }

  /** The file a zip entry should go to, refusing names that would land outside {@code target}. */
  public static Path entryTarget(Path target, String entryName) {
    Path root = target.toAbsolutePath().normalize();
    Path out = root.resolve(entryName).normalize();
    if (!out.startsWith(root) || out.equals(root)) {
      throw new HeadScopeException(
          "The archive entry \"" + entryName + "\" would be written outside " + root + "; refusing to extract it.");
    }
    return out;
  }

  /** Extracts every entry of a zip stream under {@code target} (zip-slip safe). */
  public static void unzip(InputStream zip, Path target) throws IOException {
    try (ZipInputStream in = new ZipInputStream(zip)) {
      for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
        Path out = entryTarget(target, e.getName());
        if (e.isDirectory()) {
          Files.createDirectories(out);
        } else {
          Files.createDirectories(out.getParent());
          Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /**
   * Moves a finished temporary folder or file into place in one step. If another process got there
   * first, its result is kept and ours is discarded.
   */
  public static void publish(Path temp, Path target) throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
      deleteTree(temp);
    } catch (java.nio.file.FileSystemException e) {
      // Linux reports a rename over a non-empty folder as a plain FileSystemException.
      if (!Files.exists(target)) {
        throw e;
      }
      deleteTree(temp);
    }
  }

  /** Writes the content of one output file. */
  @FunctionalInterface
  public interface Content {
    void writeTo(java.io.OutputStream out) throws IOException;
  }

  /**
   * Writes {@code target} through a temporary file in the same folder, renamed into place only when
   * complete: a failure (full disk, cancellation, a bug) never leaves a half-written file behind, and
   * nothing but a regular file is ever replaced ({@link AtomicOutput}).
   *
   * @param overwrite whether an existing file may be replaced (the CLI's {@code --force})
   */
  public static void writeAtomically(Path target, boolean overwrite, Content content) {
    AtomicOutput.write(target, overwrite, content);
  }

  public static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // best effort: a leftover temp folder is harmless
        }
      });
    } catch (IOException ignored) {
      // best effort
    }
  }
}
