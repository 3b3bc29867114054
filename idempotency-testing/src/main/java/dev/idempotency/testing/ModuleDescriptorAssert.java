package dev.idempotency.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Opens;
import java.lang.module.ModuleDescriptor.Requires;
import java.lang.module.ModuleDescriptor.Requires.Modifier;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Assertions on a module's compiled descriptor, read from its classes directory or jar. The tests
 * run on the class path, where the module system enforces nothing, so each module's {@code
 * ModuleDescriptorTest} states what its {@code module-info} promises through this: the packages it
 * exports and opens (and to whom), and the modules it requires at run time, statically (at compile
 * time only) and transitively (readable by its users). A failure names the module, the part of the
 * descriptor, and the names missing and unexpected.
 *
 * <pre>{@code
 * ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.core")
 *     .exportsExactly("dev.idempotency.core")
 *     .exportsNothingQualified()
 *     .requiresAtRunTimeExactly("java.base", "dev.idempotency.api")
 *     .requiresStaticallyExactly("org.jspecify");
 * }</pre>
 */
public final class ModuleDescriptorAssert {
  private final ModuleDescriptor descriptor;

  private ModuleDescriptorAssert(ModuleDescriptor descriptor) {
    this.descriptor = descriptor;
  }

  /**
   * The descriptor of the module named {@code moduleName} at {@code location} (an exploded classes
   * directory or a modular jar), with the packages found there.
   *
   * @throws AssertionError if there is no such module at {@code location}; the message names the
   *     modules found there instead
   */
  public static ModuleDescriptorAssert of(Path location, String moduleName) {
    ModuleFinder finder = ModuleFinder.of(location);
    return new ModuleDescriptorAssert(
        finder
            .find(moduleName)
            .orElseThrow(
                () ->
                    new AssertionError(
                        "no module "
                            + moduleName
                            + " in "
                            + location.toAbsolutePath()
                            + "; found "
                            + finder.findAll().stream()
                                .map(ModuleReference::descriptor)
                                .map(ModuleDescriptor::name)
                                .sorted()
                                .toList()))
            .descriptor());
  }

  /** For this module's own tests: a descriptor built in memory. */
  static ModuleDescriptorAssert of(ModuleDescriptor descriptor) {
    return new ModuleDescriptorAssert(descriptor);
  }

  /** The module exports exactly these packages (to anyone or to some modules; any order). */
  public ModuleDescriptorAssert exportsExactly(String... packages) {
    return sameNames("exports", packages, names(descriptor.exports(), Exports::source));
  }

  /** No export is qualified: every exported package is exported to every module. */
  public ModuleDescriptorAssert exportsNothingQualified() {
    List<String> qualified =
        descriptor.exports().stream()
            .filter(Exports::isQualified)
            .map(e -> e.source() + " to " + new TreeSet<>(e.targets()))
            .sorted()
            .toList();
    assertEquals(
        List.of(),
        qualified,
        () -> "module " + descriptor.name() + " exports to named modules only: " + qualified);
    return this;
  }

  /**
   * Exactly one export is qualified: {@code pkg}, to exactly the modules {@code toModules} (a
   * package that only a sibling module of the project may read).
   */
  public ModuleDescriptorAssert exportsOnlyQualified(String pkg, String... toModules) {
    List<Exports> qualified = descriptor.exports().stream().filter(Exports::isQualified).toList();
    sameNames("qualified exports", new String[] {pkg}, names(qualified, Exports::source));
    return sameNames(
        "exports " + pkg + " to", toModules, new TreeSet<>(qualified.get(0).targets()));
  }

  /** The module opens no package, to any module. */
  public ModuleDescriptorAssert opensNothing() {
    return sameNames("opens", new String[0], names(descriptor.opens(), Opens::source));
  }

  /**
   * The module opens exactly one package, {@code pkg}, and to exactly the modules {@code toModules}
   * (to every module when none are given).
   */
  public ModuleDescriptorAssert opensExactly(String pkg, String... toModules) {
    sameNames("opens", new String[] {pkg}, names(descriptor.opens(), Opens::source));
    Opens opens = descriptor.opens().iterator().next();
    return sameNames("opens " + pkg + " to", toModules, new TreeSet<>(opens.targets()));
  }

  /**
   * At run time the module requires exactly these modules (every {@code requires} but {@code
   * requires static}, {@code java.base} included).
   */
  public ModuleDescriptorAssert requiresAtRunTimeExactly(String... modules) {
    return sameNames(
        "requires at run time (not static)", modules, required(r -> !has(r, Modifier.STATIC)));
  }

  /** The module requires exactly these modules {@code static}: at compile time only. */
  public ModuleDescriptorAssert requiresStaticallyExactly(String... modules) {
    return sameNames("requires static", modules, required(r -> has(r, Modifier.STATIC)));
  }

  /**
   * The module requires exactly these modules {@code transitive} (static or not): its users read
   * them too.
   */
  public ModuleDescriptorAssert requiresTransitivelyExactly(String... modules) {
    return sameNames("requires transitive", modules, required(r -> has(r, Modifier.TRANSITIVE)));
  }

  /** The module requires at least these modules (with any modifiers). */
  public ModuleDescriptorAssert requires(String... modules) {
    SortedSet<String> all = required(r -> true);
    SortedSet<String> missing = difference(Arrays.asList(modules), all);
    assertEquals(
        Set.of(),
        missing,
        () -> "module " + descriptor.name() + " does not require " + missing + "; requires " + all);
    return this;
  }

  /** The module requires none of these modules (with any modifiers). */
  public ModuleDescriptorAssert doesNotRequire(String... modules) {
    SortedSet<String> all = required(r -> true);
    SortedSet<String> found = new TreeSet<>(Arrays.asList(modules));
    found.retainAll(all);
    assertEquals(
        Set.of(), found, () -> "module " + descriptor.name() + " requires " + found + " after all");
    return this;
  }

  /**
   * The module holds at least these packages (exported or not); with {@link #exportsExactly}, a
   * package that exists and stays hidden.
   */
  public ModuleDescriptorAssert containsPackages(String... packages) {
    SortedSet<String> missing = difference(Arrays.asList(packages), descriptor.packages());
    assertEquals(
        Set.of(),
        missing,
        () ->
            "module "
                + descriptor.name()
                + " has no package "
                + missing
                + "; has "
                + new TreeSet<>(descriptor.packages()));
    return this;
  }

  private ModuleDescriptorAssert sameNames(
      String what, String[] expectedNames, SortedSet<String> actual) {
    SortedSet<String> expected = new TreeSet<>(Arrays.asList(expectedNames));
    assertEquals(
        expected,
        actual,
        () ->
            "module "
                + descriptor.name()
                + " "
                + what
                + ": missing "
                + difference(expected, actual)
                + ", unexpected "
                + difference(actual, expected));
    return this;
  }

  private SortedSet<String> required(Predicate<Requires> which) {
    return names(descriptor.requires().stream().filter(which).toList(), Requires::name);
  }

  private static boolean has(Requires requires, Modifier modifier) {
    return requires.modifiers().contains(modifier);
  }

  private static <T> SortedSet<String> names(Collection<T> items, Function<T, String> name) {
    return items.stream().map(name).collect(Collectors.toCollection(TreeSet::new));
  }

  private static SortedSet<String> difference(Collection<String> from, Collection<String> minus) {
    SortedSet<String> rest = new TreeSet<>(from);
    rest.removeAll(minus);
    return rest;
  }
}
