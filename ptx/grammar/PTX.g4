// PTX 1.x - 9.0 as nvcc 11-13 and people write it: a readable ANTLR4 grammar.
//
// The grammar recognises syntax only. AntlrFrontEnd.cpp walks the tree and
// hands everything to the semantic layer both front ends share (Builder.h),
// which resolves opcodes and modifiers against the instruction table, reads
// literals and lays out the IR. So an instruction is just a dotted NAME
// (`setp.lt.and.s32`) followed by operands: which words are opcodes and which
// are modifiers is the table's business, not the grammar's.
grammar PTX;

// ============================================================================
// Module
// ============================================================================

module
    : moduleItem* EOF
    ;

moduleItem
    : versionDirective
    | targetDirective
    | addressSizeDirective
    | fileDirective
    | sectionDirective
    | pragmaDirective
    | aliasDirective
    | functionDefinition
    | moduleVariable
    | ';'
    ;

// .version 9.0   .target sm_90a, texmode_independent   .address_size 64
versionDirective     : VERSION NUMBER ;
targetDirective      : TARGET NAME (',' NAME)* ;
addressSizeDirective : ADDRESS_SIZE NUMBER ;

// .file 1 "kernel.cu"   or   .file 1 "kernel.cu", 1700000000, 4096
fileDirective
    : FILE NUMBER STRING (',' NUMBER ',' NUMBER)?
    ;

// .section .debug_info { ... }: kept verbatim, never interpreted.
sectionDirective
    : SECTION anyDirective sectionBlock
    ;

sectionBlock
    : '{' sectionItem* '}'
    ;

sectionItem
    : sectionBlock
    | ~('{' | '}')
    ;

pragmaDirective
    : PRAGMA STRING (',' STRING)* ';'
    ;

aliasDirective
    : ALIAS NAME ',' NAME ';'
    ;

// .visible .global .align 4 .b8 g[16];   .extern .shared .align 16 .b8 smem[];
moduleVariable
    : linkage? variableDeclaration ';'
    ;

linkage
    : VISIBLE | EXTERN | WEAK | COMMON
    ;

// ============================================================================
// Functions
// ============================================================================

// .visible .entry k(.param .u64 p) .maxntid 256, 1, 1 { ... }
// .extern .func (.param .b32 r) f(.param .b64 a);
functionDefinition
    : linkage? (ENTRY | FUNC) results=parameterList? NAME params=parameterList?
      functionAttribute* (functionBody | ';')
    ;

parameterList
    : '(' (parameter (',' parameter)*)? ')'
    ;

// `.param .align 8 .b8 p[16]`, `.param .u64 .ptr .global .align 16 p`, the
// old style `.reg .u32 r`, and unnamed prototype parameters `.param .b32`.
parameter
    : (PARAM | REG) variableAttribute* NAME? arrayDimension*
    ;

functionAttribute
    : NORETURN
    | performanceDirective
    | PRAGMA STRING (',' STRING)* ';'?
    ;

performanceDirective
    : (MAXNTID | REQNTID | MINNCTAPERSM | MAXNCTAPERSM | MAXNREG | REQNCTAPERCLUSTER
       | MAXCLUSTERRANK | ABI_PRESERVE) NUMBER (',' NUMBER)*
    | EXPLICITCLUSTER
    | BLOCKSARECLUSTERS
    ;

functionBody
    : '{' statement* '}'
    ;

// ============================================================================
// Statements
// ============================================================================

statement
    : label
    | prototypeDeclaration
    | targetListDeclaration
    | registerDeclaration
    | localVariable
    | locDirective
    | statementPragma
    | scope
    | instruction
    | ';'
    ;

label
    : NAME ':'
    ;

// prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);
prototypeDeclaration
    : NAME ':' CALLPROTOTYPE results=parameterList? NAME params=parameterList? NORETURN? ';'
    ;

// ts: .branchtargets $L1, $L2;     ct: .calltargets f, g;
targetListDeclaration
    : NAME ':' (BRANCHTARGETS | CALLTARGETS) NAME (',' NAME)* ';'
    ;

// .reg .b32 %r<100>;   .reg .pred %p, %q;   .reg .v4 .f32 %v;
registerDeclaration
    : REG variableAttribute* registerName (',' registerName)* ';'
    ;

registerName
    : NAME ('<' NUMBER '>')?
    ;

localVariable
    : variableDeclaration ';'
    ;

// .loc 1 23 5   or   .loc 1 23 5, function_name $L__info_string0, inlined_at 1 10 3
locDirective
    : LOC NUMBER NUMBER NUMBER (',' locAttribute)*
    ;

locAttribute
    : NAME NAME ('+' NUMBER)?          // function_name label[+offset]
    | NAME NUMBER NUMBER NUMBER        // inlined_at file line column
    ;

statementPragma
    : PRAGMA STRING (',' STRING)* ';'
    ;

// A nested scope (inline asm) with its own declarations.
scope
    : '{' statement* '}'
    ;

// @%p1 setp.lt.s32 %p2, %r1, 10;
instruction
    : guard? NAME (operand (',' operand)*)? ';'
    ;

guard
    : '@' '!'? NAME
    ;

// ============================================================================
// Variables
// ============================================================================

// .shared .align 16 .b8 smem[1024];   .global .f32 g[2][3] = {{1.0, ...}, ...};
// .global .texref t;   .global .samplerref s = { filter_mode = nearest };
variableDeclaration
    : stateSpace variableAttribute* NAME arrayDimension* ('=' initializer)?
    ;

stateSpace
    : GLOBAL | SHARED | CONST | LOCAL | PARAM | TEX
    ;

// Types (.b32), vector widths (.v4), alignment, and the `.ptr .global
// .align 16` of kernel parameters: words the front end reads in order.
variableAttribute
    : ALIGN NUMBER
    | PTR
    | ATTRIBUTE '(' attributeItem* ')'
    | DOTWORD
    | stateSpace
    ;

attributeItem
    : '(' attributeItem* ')'
    | ~('(' | ')')
    ;

arrayDimension
    : '[' NUMBER? ']'
    ;

initializer
    : '{' (fieldInitializer (',' fieldInitializer)*)? '}'    # fieldInit
    | '{' (initializer (',' initializer)*)? '}'              # listInit
    | constExpr                                               # constInit
    | NAME '(' NAME ')' (sign=('+' | '-') NUMBER)?             # genericInit
    | NAME (sign=('+' | '-') NUMBER)?                          # symbolInit
    ;

fieldInitializer
    : NAME '=' (NAME | NUMBER)
    ;

// ============================================================================
// Operands
// ============================================================================

// `a|b` pairs bind loosest: %r1|%p1 (a|b|c nests to the right). A loop, not
// recursion, so that long chains cannot exhaust the stack.
operand
    : primaryOperand ('|' primaryOperand)*
    ;

// A constant expression starts with a number, `(`, `-`, `~`, `!` or `+`,
// exactly where the fast front end starts one: `-%r2` is a negated video
// source, `!%p` a negated predicate, and `(` before anything else a call
// list.
primaryOperand
    : constExpr                                      # constantOperand
    | '!' NAME                                       # negatedOperand
    | '-' NAME                                       # minusOperand
    | '(' (listHead (',' operand)*)? ')'             # listOperand
    | structuredOperand                              # otherOperand
    ;

// The first operand of a call list cannot start like a constant.
listHead
    : structuredOperand ('|' primaryOperand)*
    ;

// %r1, %tid.x, %r1.b0, %r1.b3210, sym, _, [addr], {%r1, %r2}
structuredOperand
    : NAME                                           # nameOperand
    | '[' bracketContent ']'                         # bracketOperand
    | '{' (operand (',' operand)*)? '}'              # vectorOperand
    ;

// [0x100], [%rd1], [%rd1+8], [%rd1+-8], [sym+4], [4*64], and lists
// [tex, {%f1, %f2}]. A number first is a constant expression, so `+ 8`
// after one belongs to it.
bracketContent
    : operand (',' operand)+                        # addressList
    | operand (sign=('+' | '-') '-'? NUMBER)?       # baseAddress
    ;

// Integer constant expressions with C's operators. Precedence is applied by
// the front end (constBinaryPrecedence in Builder.h), over this flat list.
constExpr
    : constUnary (binaryOperator constUnary)* ('?' constExpr ':' constExpr)?
    ;

constUnary
    : unaryOperator* constAtom
    ;

constAtom
    : NUMBER
    | '(' constExpr ')'
    ;

unaryOperator
    : '-' | '+' | '!' | '~'
    ;

// `%` alone lexes as a NAME (the fast front end even takes it for a register
// name); as an operator the front end checks its text.
binaryOperator
    : '*' | '/' | {_input->LT(1)->getText() == "%"}? NAME | '+' | '-' | '<<' | '>>' | '<' | '>' | '<=' | '>=' | '==' | '!='
    | '&' | '^' | '|' | '&&' | '||'
    ;

// Any `.word`, for the names of sections.
anyDirective
    : DOTWORD | VERSION | TARGET | ADDRESS_SIZE | FILE | LOC | SECTION | PRAGMA | ALIAS
    | VISIBLE | EXTERN | WEAK | COMMON | ENTRY | FUNC | NORETURN | CALLPROTOTYPE
    | BRANCHTARGETS | CALLTARGETS | MAXNTID | REQNTID | MINNCTAPERSM | MAXNCTAPERSM
    | MAXNREG | REQNCTAPERCLUSTER | EXPLICITCLUSTER | MAXCLUSTERRANK | BLOCKSARECLUSTERS
    | ABI_PRESERVE | REG | PARAM | GLOBAL | SHARED | CONST | LOCAL | TEX | ALIGN | PTR
    | ATTRIBUTE
    ;

// ============================================================================
// Lexer
// ============================================================================

VERSION           : '.version' ;
TARGET            : '.target' ;
ADDRESS_SIZE      : '.address_size' ;
FILE              : '.file' ;
LOC               : '.loc' ;
SECTION           : '.section' ;
PRAGMA            : '.pragma' ;
ALIAS             : '.alias' ;

VISIBLE           : '.visible' ;
EXTERN            : '.extern' ;
WEAK              : '.weak' ;
COMMON            : '.common' ;

ENTRY             : '.entry' ;
FUNC              : '.func' ;
NORETURN          : '.noreturn' ;
CALLPROTOTYPE     : '.callprototype' ;
BRANCHTARGETS     : '.branchtargets' ;
CALLTARGETS       : '.calltargets' ;

MAXNTID           : '.maxntid' ;
REQNTID           : '.reqntid' ;
MINNCTAPERSM      : '.minnctapersm' ;
MAXNCTAPERSM      : '.maxnctapersm' ;
MAXNREG           : '.maxnreg' ;
REQNCTAPERCLUSTER : '.reqnctapercluster' ;
EXPLICITCLUSTER   : '.explicitcluster' ;
MAXCLUSTERRANK    : '.maxclusterrank' ;
BLOCKSARECLUSTERS : '.blocksareclusters' ;
ABI_PRESERVE      : '.abi_preserve' ;

REG               : '.reg' ;
PARAM             : '.param' ;
GLOBAL            : '.global' ;
SHARED            : '.shared' ;
CONST             : '.const' ;
LOCAL             : '.local' ;
TEX               : '.tex' ;
ALIGN             : '.align' ;
PTR               : '.ptr' ;
ATTRIBUTE         : '.attribute' ;

// Any other `.word`: types (.b32), vector widths (.v4), section names.
// Words may contain `::` (.shared::cta); `.5` is a number.
DOTWORD : '.' [a-zA-Z_$] (WORD_CHAR | '::' WORD_CHAR)* ;


// Identifiers: registers (%r1), labels ($L__BB0_1), symbols (_Z3fooPi), the
// sink (_), and instructions together with their modifiers
// (setp.lt.and.s32, ld.global.L1::no_allocate.v4.f32). A register followed
// by a component or selector (%tid.x, %r1.b0) is one NAME as well.
NAME : NAME_START WORD_CHAR* ('.' WORD_CHAR (WORD_CHAR | '::' WORD_CHAR)*)* ;

// 42, 0x1F, 017, 0b101, 10U, 0f3F800000, 0d3FF0000000000000, 1.5, 1e-3
NUMBER
    : '0' [xXfFdD] (WORD_CHAR | '.')*
    | '0'
    | '0' (NOT_RADIX | [eE] [+-]) (WORD_CHAR | '.' | [eE] [+-])*
    | [1-9] (WORD_CHAR | '.' | [eE] [+-])*
    | '.' [0-9] (WORD_CHAR | '.' | [eE] [+-])*
    ;

STRING : '"' ('\\' ~[\n] | ~["\\\n])* '"' ;
// A string without its closing quote on the line; the parser reports it.
UNTERMINATED_STRING : '"' ('\\' ~[\n] | ~["\\\n])* ;

LBRACE   : '{' ;
RBRACE   : '}' ;
LPAREN   : '(' ;
RPAREN   : ')' ;
LBRACKET : '[' ;
RBRACKET : ']' ;
COMMA    : ',' ;
SEMI     : ';' ;
COLON    : ':' ;
PLUS     : '+' ;
MINUS    : '-' ;
BANG     : '!' ;
AT       : '@' ;
PIPE     : '|' ;
LT       : '<' ;
GT       : '>' ;
EQUALS   : '=' ;
// Constant expression operators. Two-character operators are single
// tokens: the fast front end reads them only when their characters touch.
SHL      : '<<' ;
SHR      : '>>' ;
LE       : '<=' ;
GE       : '>=' ;
EQEQ     : '==' ;
NE       : '!=' ;
ANDAND   : '&&' ;
OROR     : '||' ;
STAR     : '*' ;
SLASH    : '/' ;
AMP      : '&' ;
CARET    : '^' ;
TILDE    : '~' ;
QUESTION : '?' ;

LINE_COMMENT  : '//' ~[\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// An unterminated block comment swallows the rest of the file; the parser
// reports it.
UNTERMINATED_COMMENT : '/*' (~[*] | '*'+ ~[*/])* '*'* EOF ;
WS : [ \t\r\n\f\u000B]+ -> skip ;

// Any other character: the lexer never fails, the parser reports it.
OTHER : . ;

fragment NAME_START : [a-zA-Z_$%] ;
fragment WORD_CHAR  : [a-zA-Z0-9_$] ;
// What may follow a leading 0 in a decimal or octal number (not x, f, d).
fragment NOT_RADIX  : [a-ce-eg-wyzA-CE-EG-WYZ0-9_$.] ;
