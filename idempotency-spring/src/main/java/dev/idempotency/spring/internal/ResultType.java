package dev.idempotency.spring.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.TypeVariable;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.type.TypeFactory;

/**
 * The result type of an {@code @Idempotent} method on its bean's class, and which class of a result
 * is kept with it.
 *
 * <p>The declared type is resolved against the bean's class: {@code R handle(…)} of {@code
 * Handler<R>} on a {@code ReceiptHandler extends Handler<Receipt>} is a {@code Receipt}, and {@code
 * List<R>} a {@code List<Receipt>}. A result whose class is a strict subtype of an application's
 * declared class or interface (a {@code DiscountedInvoice} of a method declared {@code Invoice}) is
 * written as that class and its name is kept; a replay reads it back as that class only when the
 * name loads (without initializing the class) as a subtype of the declared type, so that a record
 * written by something else cannot make the advisor fill a class the method could not have
 * returned.
 */
final class ResultType {
  private final JavaType declared;
  private final ClassLoader loader;

  /**
   * Whether results may be of a subclass the declared type does not name: the declared type is an
   * application's class or interface that can have subtypes (not final, not a collection, a map or
   * an array, not a JDK type: those a replay reads as JSON reads them).
   */
  private final boolean keepsConcreteClass;

  private ResultType(JavaType declared, ClassLoader loader) {
    this.declared = declared;
    this.loader = loader;
    Class<?> raw = declared.getRawClass();
    this.keepsConcreteClass =
        !declared.isContainerType()
            && !declared.isReferenceType()
            && !raw.isPrimitive()
            && !raw.isEnum()
            && !Modifier.isFinal(raw.getModifiers())
            && !isJdk(raw);
  }

  /**
   * The result type of {@code method} on a bean of class {@code targetClass}.
   *
   * @param targetClass the bean's class, or null when unknown (the method's own class is used)
   * @throws IllegalArgumentException if a replay could not be the object the method returned: a
   *     type variable the bean's class does not bind, {@code Object} or another abstract JDK type
   *     that is not a collection or a map (the message says why and what to declare instead)
   */
  static ResultType of(Method method, @Nullable Class<?> targetClass, TypeFactory types) {
    Class<?> context = targetClass != null ? targetClass : method.getDeclaringClass();
    JavaType declared =
        javaType(ResolvableType.forMethodReturnType(method, context), context, types);
    Class<?> raw = declared.getRawClass();
    if (raw == Object.class
        || (isJdk(raw)
            && (raw.isInterface() || Modifier.isAbstract(raw.getModifiers()))
            && !raw.isPrimitive()
            && !declared.isContainerType()
            && !declared.isReferenceType())) {
      throw new IllegalArgumentException(
          "its result type "
              + raw.getName()
              + " says nothing of the class the method returns: a replay would be whatever JSON"
              + " reads back as a "
              + raw.getSimpleName()
              + " (maps, lists, numbers, text), not the object the method returned; declare the"
              + " result's own class or interface");
    }
    ClassLoader loader = context.getClassLoader();
    return new ResultType(declared, loader != null ? loader : ClassLoader.getSystemClassLoader());
  }

  /** {@code type} as Jackson's type, its type variables resolved against {@code context}. */
  private static JavaType javaType(ResolvableType type, Class<?> context, TypeFactory types) {
    if (type.isArray()) {
      return types.constructArrayType(javaType(type.getComponentType(), context, types));
    }
    Class<?> raw = type.resolve();
    if (raw == null) {
      if (type.getType() instanceof TypeVariable<?> variable) {
        throw new IllegalArgumentException(
            "its result type has the type variable "
                + variable.getName()
                + " of "
                + variable.getGenericDeclaration()
                + ", which its bean's class "
                + context.getName()
                + " does not bind: a replay would be JSON maps and lists, not a "
                + variable.getName()
                + "; make the bean an instance of a class that binds it (class ReceiptHandler"
                + " extends Handler<Receipt>)");
      }
      return types.constructType(Object.class); // a wildcard bounded from below: ? super X
    }
    ResolvableType[] generics = type.getGenerics();
    if (generics.length == 0) {
      return types.constructType(raw);
    }
    JavaType[] parameters = new JavaType[generics.length];
    for (int i = 0; i < generics.length; i++) {
      ResolvableType generic = generics[i];
      // a raw use of a generic class (List) leaves the class's own variables: JSON's types, as for
      // any raw collection
      boolean rawUse =
          generic.resolve() == null
              && generic.getType() instanceof TypeVariable<?> variable
              && variable.getGenericDeclaration() == raw;
      parameters[i] =
          rawUse ? types.constructType(Object.class) : javaType(generic, context, types);
    }
    return types.constructParametricType(raw, parameters);
  }

  /** The declared type, resolved against the bean's class. */
  JavaType declared() {
    return declared;
  }

  /**
   * The class of {@code result} to keep with it: its own class when that is a strict subtype of the
   * declared one whose name a replay can load; null when the declared type says it all.
   */
  @Nullable Class<?> classToKeep(Object result) {
    if (!keepsConcreteClass) {
      return null;
    }
    Class<?> actual = ClassUtils.getUserClass(result);
    return actual != declared.getRawClass()
            && declared.getRawClass().isAssignableFrom(actual)
            && loadableByName(actual)
        ? actual
        : null;
  }

  /**
   * The class a stored result names, checked before anything of it is initialized or constructed.
   *
   * @throws IllegalStateException if it does not load, or is not a strict subtype of the declared
   *     type (a record this method did not write)
   */
  Class<?> storedClass(String name) {
    if (!keepsConcreteClass) {
      throw new IllegalStateException(
          "the stored result names the class "
              + name
              + ", but results of "
              + declared.getRawClass().getName()
              + " are stored without one: not read (a record this method did not write)");
    }
    Class<?> stored;
    try {
      stored = Class.forName(name, false, loader); // not initialized: no static initializer runs
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException(
          "the stored result's class " + name + " cannot be loaded: " + e, e);
    }
    if (stored == declared.getRawClass()
        || !declared.getRawClass().isAssignableFrom(stored)
        || !loadableByName(stored)) {
      throw new IllegalStateException(
          "the stored result's class "
              + name
              + " is not a subtype of "
              + declared.getRawClass().getName()
              + ": not read (a record this method did not write)");
    }
    return stored;
  }

  /** {@link #declared()} narrowed to {@code subclass}, with the type arguments it implies. */
  JavaType narrowedTo(Class<?> subclass, TypeFactory types) {
    return types.constructSpecializedType(declared, subclass);
  }

  /** A class a replay can name: not anonymous, local, an inner class, synthetic or hidden. */
  private static boolean loadableByName(Class<?> type) {
    return !type.isAnonymousClass()
        && !type.isLocalClass()
        && !type.isSynthetic()
        && !type.isHidden()
        && !type.isArray()
        && (type.getEnclosingClass() == null || Modifier.isStatic(type.getModifiers()));
  }

  /** A class of the JDK (the bootstrap or platform class loader's). */
  private static boolean isJdk(Class<?> type) {
    ClassLoader loader = type.getClassLoader();
    return loader == null || loader == ClassLoader.getPlatformClassLoader();
  }
}
