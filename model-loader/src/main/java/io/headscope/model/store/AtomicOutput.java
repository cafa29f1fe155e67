package io.headscope.model.store;

import io.headscope.model.core.HeadScopeException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Output files written whole or not at all, replacing nothing but a regular file.
 *
 * <ul>
 *   <li>The content goes to a hidden temporary file in the target's folder
 *       ({@code .NAME.headscope-MACHINE-PID-N.part}), renamed into place only when complete.
 *   <li>Without overwrite the final step is a hard link, which fails if a file appeared meanwhile: two
 *       runs with the same output never silently lose one result.
 *   <li>Devices, named pipes, sockets, folders and symbolic links are never replaced; a replaced file
 *       keeps its permissions, a new file gets the process's umask.
 *   <li>On SIGINT or SIGTERM an unfinished write stops and its temporary file is deleted; temporaries
 *       left by a killed process of this machine (its PID is gone) are swept at the next write into the
 *       folder. A PID means something only where it was issued: on a shared folder (NFS, a cluster's
 *       scratch) or from another container, a temporary whose writer's PID is not visible here may be
 *       live. So temporaries carry their machine ({@link #MACHINE}), and those of other machines, or of
 *       releases before the machine tag, are swept only after a day without a change.
 *   <li>The early check creates a probe as long as the real temporary name, so a name that would be too
 *       long for the file system fails before the work, not after it.
 * </ul>
 */
public final class AtomicOutput {
  private static final Pattern OURS = Pattern.compile("\\..+\\.headscope-([0-9a-f]{8})-(\\d+)-\\d+\\.part");
  /** Temporaries named by the PID alone, before the machine tag. */
  private static final Pattern PID_ONLY = Pattern.compile("\\..+\\.headscope-(\\d+)-\\d+\\.part");
  /** How long a temporary of another machine must have stood unchanged before it is taken for a leftover. */
  static final long FOREIGN_AGE_MILLIS = 24L * 3600 * 1000;
  /**
   * This machine and PID namespace: a hash of the host name, the boot id and the PID namespace, the
   * three things that make a PID mean one process. Two containers on one host differ, as do two nodes.
   */
  static final String MACHINE = MachineTag.current();
  /** Temporaries named by {@code Files.createTempFile} before PID-named ones existed. */
  private static final Pattern OLD_STYLE = Pattern.compile("\\..+\\.\\d{6,}\\.part");
  private static final long PID = ProcessHandle.current().pid();
  private static final AtomicLong COUNTER = new AtomicLong();
  private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();
  /** The files a run reads ({@link #protectInputs}): never replaced by its outputs, --force or not. */
  private static final Set<Path> INPUTS = ConcurrentHashMap.newKeySet();
  /**
   * The folders a run reads (its model's folder, the model cache), each with what it is in words: no output
   * goes inside them, --force or not (the folder's own files are the model's).
   */
  private static final java.util.Map<Path, String> INPUT_FOLDERS = new ConcurrentHashMap<>();
  private static volatile boolean shuttingDown;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(AtomicOutput::onShutdown, "headscope-temp-cleanup"));
  }

  private AtomicOutput() {}

  /**
   * Everything that can be checked before the work: what is at the path, that the folder exists, and
   * that a file can really be created there (a probe file, since root passes permission checks on a
   * read-only mount's folders only to fail at the end).
   */
  public static void check(Path target, boolean overwrite) {
    Path abs = absolute(target);
    refuseWhatCannotBeReplaced(target, abs, overwrite);
    Path dir = abs.getParent();
    // named as the real temporary will be (same length), so a name too long for the file system fails now
    Path probe = dir.resolve(temporaryName(abs));
    try {
      Files.createFile(probe);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write " + target + ": " + describeFolderProblem(dir, e) + ".");
    } finally {
      try {
        Files.deleteIfExists(probe);
      } catch (IOException ignored) {
        // an empty hidden probe is harmless
      }
    }
  }

  /** Writes {@code target} atomically (see the class comment): a set of one ({@link #writeSet}). */
  public static void write(Path target, boolean overwrite, SafeFiles.Content content) {
    writeSet(List.of(new Member(target, content)), overwrite);
  }

  /**
   * Declares the files a run reads, until the returned handle is closed: an output that is one of them
   * (the same file, also through a link) is refused at the early check and again at the write, so
   * {@code ablate --corpus c.txt --out c.txt --force} cannot replace its corpus with its CSV.
   */
  public static AutoCloseable protectInputs(java.util.Collection<Path> inputs) {
    return protectInputs(inputs, java.util.Map.of());
  }

  /**
   * Declares the files and folders a run reads, until the returned handle is closed: an output that is one of
   * the files, or lies anywhere inside one of the folders (a model folder's {@code model.safetensors}, a file
   * in the model cache), is refused at the early check and again at the write, --force or not. Compared
   * through links, and also when the output does not exist yet.
   *
   * @param folders each folder with what it is, for the message ("the model folder")
   */
  public static AutoCloseable protectInputs(java.util.Collection<Path> files, java.util.Map<Path, String> folders) {
    List<Path> added = new java.util.ArrayList<>();
    for (Path p : files) {
      Path abs = p.toAbsolutePath().normalize();
      if (INPUTS.add(abs)) {
        added.add(abs);
      }
    }
    List<Path> addedFolders = new java.util.ArrayList<>();
    folders.forEach((p, what) -> {
      Path abs = p.toAbsolutePath().normalize();
      if (INPUT_FOLDERS.putIfAbsent(abs, what) == null) {
        addedFolders.add(abs);
      }
    });
    return () -> {
      INPUTS.removeAll(added);
      addedFolders.forEach(INPUT_FOLDERS::remove);
    };
  }

  /**
   * Refuses an output (a file, or a folder a command builds, such as finetune's) that is one of the run's
   * inputs or lies inside a folder it reads ({@link #protectInputs}).
   */
  public static void refuseAnInput(Path target) {
    refuseAnInput(target, absolute(target));
  }

  /** {@code .NAME.headscope-MACHINE-PID-N.part}: hidden, beside the target, naming its writer. */
  static String temporaryName(Path abs) {
    return temporaryName(abs.getFileName().toString());
  }

  /**
   * A hidden temporary's name that names its writer, {@code .NAME.headscope-MACHINE-PID-N.part}, for a file
   * or folder that another writer (a model folder's) builds and {@link #isLeftover} can judge.
   */
  public static String temporaryName(String name) {
    return "." + name + ".headscope-" + MACHINE + "-" + PID + "-" + COUNTER.incrementAndGet() + ".part";
  }

  /**
   * Whether a temporary named by {@link #temporaryName} was left by a writer that is gone: on this machine,
   * its process no longer runs (or started after the temporary last changed, a reused PID); from another
   * machine or PID namespace, or named by a PID alone, it has stood unchanged for {@link #FOREIGN_AGE_MILLIS}.
   * False for names of other kinds.
   */
  public static boolean isLeftover(Path p) {
    String name = p.getFileName().toString();
    Matcher m = OURS.matcher(name);
    if (m.matches() && m.group(1).equals(MACHINE)) {
      long pid = Long.parseLong(m.group(2));
      return pid != PID && !runningSince(pid, lastModified(p));
    }
    if (m.matches() || PID_ONLY.matcher(name).matches()) {
      return System.currentTimeMillis() - lastModified(p) > FOREIGN_AGE_MILLIS;
    }
    return false;
  }

  /** One file of a set written together ({@link #writeSet}). */
  public record Member(Path target, SafeFiles.Content content) {}

  /**
   * Writes a set of files that belong together (a CSV and its {@code .json} sidecar, a run's figures) as a
   * set: every target is checked, every content written to its temporary, every target checked again, and
   * only then are they renamed into place, one after the other. A problem at any of them (a link or a folder
   * in one's place, a full disk) leaves none of the set written; without overwrite, a file that appears
   * meanwhile at one target undoes the ones already published.
   *
   * <p>The first member is the set's key, the file a reader opens first (the CSV): an old key is moved
   * aside before anything is renamed, and the new key is renamed into place last. So even a SIGKILL between
   * two renames never leaves a key beside members of another write (or without them): a reader who finds
   * the key finds its whole set. (The sidecar of a killed write may stand alone, without its CSV.)
   */
  public static void writeSet(List<Member> members, boolean overwrite) {
    List<Path> temps = new java.util.ArrayList<>();
    List<Path> published = new java.util.ArrayList<>();
    Path keyAside = null;
    Member current = null;
    try {
      for (Member m : members) {
        current = m;
        Path abs = absolute(m.target());
        refuseWhatCannotBeReplaced(m.target(), abs, overwrite);
      }
      for (Member m : members) {
        current = m;
        Path abs = absolute(m.target());
        sweepStaleTemporaries(abs.getParent());
        Path temp = abs.getParent().resolve(temporaryName(abs));
        LIVE.add(temp);
        temps.add(temp);
        Files.createFile(temp); // default permissions: the umask decides, as for any new file
        if (overwrite && Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
          keepPermissions(abs, temp);
        }
        try (OutputStream out = new StopsOnShutdown(new java.io.BufferedOutputStream(Files.newOutputStream(temp)))) {
          m.content().writeTo(out);
        }
      }
      for (Member m : members) { // again: something may have appeared meanwhile
        current = m;
        refuseWhatCannotBeReplaced(m.target(), absolute(m.target()), overwrite);
      }
      // The first member is the set's key (a CSV beside its .json sidecar): a reader opens it first. It goes
      // out of the way first (an old one moved aside) and comes back last, so whoever finds the key finds the
      // rest of its set, and a kill between two renames leaves no key beside a sidecar of another write.
      Path keyAbs = absolute(members.get(0).target());
      if (members.size() > 1 && overwrite && Files.isRegularFile(keyAbs, LinkOption.NOFOLLOW_LINKS)) {
        current = members.get(0);
        keyAside = keyAbs.resolveSibling(temporaryName(keyAbs)); // named by its writer: swept if this one dies
        LIVE.add(keyAside);
        beforePublish();
        Files.move(keyAbs, keyAside, StandardCopyOption.ATOMIC_MOVE);
      }
      for (int k = 1; k <= members.size(); k++) {
        int i = k % members.size(); // 1, 2, ..., then 0: the key last
        current = members.get(i);
        Path abs = absolute(current.target());
        beforePublish();
        if (overwrite) {
          try {
            Files.move(temps.get(i), abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          } catch (AtomicMoveNotSupportedException e) {
            Files.move(temps.get(i), abs, StandardCopyOption.REPLACE_EXISTING);
          }
        } else {
          publishWithoutReplacing(temps.get(i), abs, current.target());
          published.add(abs);
        }
      }
      if (keyAside != null) {
        Files.deleteIfExists(keyAside); // replaced: the new key is in place
        LIVE.remove(keyAside);
        keyAside = null;
      }
    } catch (IOException | HeadScopeException e) {
      if (keyAside != null) {
        try {
          Files.move(keyAside, absolute(members.get(0).target()), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException ignored) {
          // it stays aside under its writer's name, swept as a leftover
        } finally {
          LIVE.remove(keyAside);
        }
      }
      for (Path p : published) {
        try {
          Files.deleteIfExists(p); // new files of this set only: without overwrite nothing was replaced
        } catch (IOException ignored) {
          // best effort
        }
      }
      if (e instanceof HeadScopeException h) {
        throw h;
      }
      throw new HeadScopeException("Cannot write " + current.target() + ": " + describe((IOException) e)
          + (members.size() == 1 ? "; nothing was written." : "; none of the " + members.size()
              + " files was written."), e);
    } finally {
      for (Path t : temps) {
        try {
          Files.deleteIfExists(t);
        } catch (IOException ignored) {
          // swept at the next write into this folder
        } finally {
          LIVE.remove(t);
        }
      }
    }
  }

  /** Called before each rename of a set's publication: lets a test look at the folder between two renames. */
  static volatile Runnable beforeEachRename;

  private static void beforePublish() {
    Runnable hook = beforeEachRename;
    if (hook != null) {
      hook.run();
    }
  }

  /** What is at a path, in words, or null when nothing is. Symbolic links are not followed. */
  public static String whatIsAt(Path p) {
    if (Files.isSymbolicLink(p)) {
      try {
        return "a symbolic link (to " + Files.readSymbolicLink(p) + ")";
      } catch (IOException e) {
        return "a symbolic link";
      }
    }
    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
      return "a folder";
    }
    if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
      return "a regular file";
    }
    try {
      int type = ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 0170000;
      return switch (type) {
        case 0020000 -> "a character device";
        case 0060000 -> "a block device";
        case 0010000 -> "a named pipe (FIFO)";
        case 0140000 -> "a socket";
        default -> "a special file";
      };
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "a special file";
    }
  }

  private static Path absolute(Path target) {
    if (target.toString().isBlank()) {
      throw new HeadScopeException("The output file name is empty; give a file name.");
    }
    return target.toAbsolutePath().normalize();
  }

  private static void refuseWhatCannotBeReplaced(Path target, Path abs, boolean overwrite) {
    refuseAnInput(target, abs);
    String what = whatIsAt(abs);
    if ("a folder".equals(what)) {
      throw new HeadScopeException(target + " is a folder; give a file name.");
    }
    if (what != null && !what.equals("a regular file")) {
      throw new HeadScopeException(target + " is " + what + "; HeadScope writes only regular files and "
          + "never replaces anything else: give another file name.");
    }
    if (what != null && !overwrite) {
      throw new HeadScopeException(target + " already exists; use --force to overwrite it.");
    }
    Path dir = abs.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new HeadScopeException("Cannot write " + target + ": the folder " + dir + " does not exist.");
    }
  }

  private static void refuseAnInput(Path target, Path abs) {
    if (!GUARDED.get()) {
      return; // the cache's own bookkeeping (writeOwn), never a user's output
    }
    Path real = SafeFiles.realPath(abs);
    for (Path input : INPUTS) {
      boolean same = real.equals(SafeFiles.realPath(input)); // also an input that does not exist yet (a new head-sets file)
      try {
        same = same || Files.exists(abs) && Files.exists(input) && Files.isSameFile(input, abs); // a hard link
      } catch (IOException e) {
        // an input that cannot be compared is not the output
      }
      if (same) {
        throw new HeadScopeException(target + " is one of this run's inputs (" + input + "); give the output "
            + "another name (--force never replaces an input).");
      }
    }
    for (java.util.Map.Entry<Path, String> folder : INPUT_FOLDERS.entrySet()) {
      if (real.startsWith(SafeFiles.realPath(folder.getKey()))) {
        throw new HeadScopeException(target + " is inside " + folder.getValue() + " (" + folder.getKey() + "), which "
            + "this run reads; give the output a place outside it (--force never replaces an input).");
      }
    }
  }

  /** False while the cache writes its own files ({@link #writeOwn}): they are no run's outputs. */
  private static final ThreadLocal<Boolean> GUARDED = ThreadLocal.withInitial(() -> true);

  /**
   * Writes a file of the model cache's own (its manifest) atomically, exempt from the protection of a run's
   * inputs: the cache is an input of every run, and the cache alone writes there.
   */
  static void writeOwn(Path target, SafeFiles.Content content) {
    GUARDED.set(false);
    try {
      write(target, true, content);
    } finally {
      GUARDED.set(true);
    }
  }


  /** The final step without --force: a hard link fails if the name was taken meanwhile. */
  private static void publishWithoutReplacing(Path temp, Path abs, Path target) throws IOException {
    try {
      Files.createLink(abs, temp);
    } catch (FileAlreadyExistsException e) {
      throw new HeadScopeException(target + " already exists (another run wrote it meanwhile); use --force to "
          + "overwrite it. Nothing was written.");
    } catch (UnsupportedOperationException | java.nio.file.FileSystemException e) {
      if (e instanceof FileAlreadyExistsException) {
        throw e;
      }
      // a file system without hard links: a rename that refuses an existing file (checked just before)
      Files.move(temp, abs);
    }
  }

  private static void keepPermissions(Path from, Path to) {
    try {
      Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from, LinkOption.NOFOLLOW_LINKS));
    } catch (IOException | UnsupportedOperationException ignored) {
      // not a POSIX file system: the default permissions stand
    }
  }

  /**
   * Deletes temporaries in {@code dir} whose writer is gone: files, and folders named by their writer
   * ({@link #temporaryName}: a model folder's staging). Those of this machine name their process,
   * which must no longer run (or have started after the file was last written, when its PID was reused);
   * those of another machine or PID namespace, and those named by a PID alone, cannot be judged by PID
   * here and must have stood unchanged for {@link #FOREIGN_AGE_MILLIS}; the oldest style must predate
   * this process.
   */
  public static void sweepStaleTemporaries(Path dir) {
    long myStart = ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, ".*.part")) {
      for (Path p : files) {
        String name = p.getFileName().toString();
        boolean stale = OURS.matcher(name).matches() || PID_ONLY.matcher(name).matches() ? isLeftover(p)
            : OLD_STYLE.matcher(name).matches() && lastModified(p) < myStart;
        if (stale && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.deleteIfExists(p);
        } else if (stale && OURS.matcher(name).matches() && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          SafeFiles.deleteTree(p); // a killed finetune's or conversion's staging folder (tens of MB), named as ours
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // best effort: a leftover hidden file does no harm
    }
  }

  /** Whether process {@code pid} runs now and was already running when a file was written at {@code millis}. */
  private static boolean runningSince(long pid, long millis) {
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .map(h -> h.info().startInstant().map(s -> s.toEpochMilli() <= millis).orElse(true))
        .orElse(false);
  }

  private static long lastModified(Path p) {
    try {
      return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis();
    } catch (IOException e) {
      return FileTime.fromMillis(Long.MAX_VALUE).toMillis();
    }
  }

  private static void onShutdown() {
    shuttingDown = true;
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!LIVE.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20); // writers notice at their next write and delete their own temporary
      } catch (InterruptedException e) {
        break;
      }
    }
    for (Path p : LIVE) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException ignored) {
        // swept at the next write into this folder
      }
    }
  }

  private static String describeFolderProblem(Path dir, IOException e) {
    String m = String.valueOf(e.getMessage());
    if (m.contains("File name too long")) {
      return "the file name is too long for the file system (HeadScope writes a temporary file beside it whose "
          + "name is about 40 bytes longer): give a shorter name";
    }
    if (m.contains("Read-only file system")) {
      return "the folder " + dir + " is on a read-only file system";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "the folder " + dir + " is not writable (permission denied)";
    }
    if (m.contains("No space left")) {
      return "the disk holding " + dir + " is full";
    }
    return "cannot create a file in " + dir + " (" + m + ")";
  }

  static String describe(IOException e) {
    String m = e.getMessage();
    if (m != null && m.contains("No space left")) {
      return "the disk is full";
    }
    if (m != null && m.contains("Read-only file system")) {
      return "the folder is on a read-only file system";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof InterruptedIOException) {
      return "HeadScope was stopped";
    }
    return m == null ? e.getClass().getSimpleName() : m;
  }

  /** Stops a write at the next call once the process is shutting down (SIGINT, SIGTERM). */
  private static final class StopsOnShutdown extends FilterOutputStream {
    StopsOnShutdown(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      check();
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      check();
      out.write(b, off, len);
    }

    private static void check() throws InterruptedIOException {
      if (shuttingDown) {
        throw new InterruptedIOException("HeadScope is shutting down");
      }
    }
  }
}
