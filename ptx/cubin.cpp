// Reading and writing cubins (ELF64, EM_CUDA). Every read is bounds-checked against the image.
#include "ptx/cubin.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>

namespace cfr::ptx::cubin {
namespace {

constexpr uint8_t kStoCudaEntry = 0x10; // st_other of a kernel symbol
constexpr uint8_t kSttCudaObject = 13;  // STT_LOPROC: variables of relocatable cubins
constexpr uint8_t kOsAbiCuda = 0x41;
constexpr uint8_t kAbiVersionCuda13 = 8; // from this ABI on, e_flags holds the arch in bits 8-15
constexpr uint32_t kFlagsCuda13 = 0x6000000;
constexpr size_t kMaxTables = size_t{1} << 30; // header tables beyond this are implausible

// True when [offset, offset + length) lies inside `size` bytes.
bool inside(uint64_t offset, uint64_t length, size_t size) {
    return offset <= size && length <= size - offset;
}

template <typename T>
T load_at(std::string_view elf, uint64_t offset) {
    if (!inside(offset, sizeof(T), elf.size())) throw CubinError("cubin: truncated ELF header");
    T value;
    std::memcpy(&value, elf.data() + offset, sizeof(T));
    return value;
}

Elf64_Ehdr elf_header(std::string_view elf) {
    if (elf.size() < sizeof(Elf64_Ehdr) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0)
        throw CubinError("cubin: not an ELF file");
    const auto h = load_at<Elf64_Ehdr>(elf, 0);
    if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB)
        throw CubinError("cubin: not a little-endian ELF64 file");
    if (h.e_machine != kMachineCuda)
        throw CubinError("cubin: ELF for machine " + std::to_string(h.e_machine) +
                         ", not EM_CUDA (190)");
    return h;
}

std::vector<Elf64_Shdr> section_headers(std::string_view elf, const Elf64_Ehdr& h) {
    std::vector<Elf64_Shdr> out;
    if (h.e_shnum == 0) return out;
    if (h.e_shentsize < sizeof(Elf64_Shdr))
        throw CubinError("cubin: section header entries too small");
    if (!inside(h.e_shoff, uint64_t{h.e_shnum} * h.e_shentsize, elf.size()))
        throw CubinError("cubin: section header table outside the image");
    out.reserve(h.e_shnum);
    for (uint64_t i = 0; i < h.e_shnum; ++i)
        out.push_back(load_at<Elf64_Shdr>(elf, h.e_shoff + i * h.e_shentsize));
    return out;
}

std::string_view contents(std::string_view elf, const Elf64_Shdr& s) {
    if (s.sh_type == SHT_NOBITS) return {};
    if (!inside(s.sh_offset, s.sh_size, elf.size()))
        throw CubinError("cubin: section contents outside the image");
    return elf.substr(s.sh_offset, s.sh_size);
}

std::string_view string_at(std::string_view table, uint64_t offset) {
    if (offset >= table.size()) throw CubinError("cubin: name outside its string table");
    const std::string_view rest = table.substr(offset);
    const size_t nul = rest.find('\0');
    if (nul == std::string_view::npos) throw CubinError("cubin: unterminated name");
    return rest.substr(0, nul);
}

struct Parsed {
    Elf64_Ehdr header;
    std::vector<Elf64_Shdr> sections;
    std::vector<std::string_view> names;
};

Parsed parse(std::string_view elf) {
    Parsed p{elf_header(elf), {}, {}};
    p.sections = section_headers(elf, p.header);
    if (p.sections.empty()) return p;
    if (p.header.e_shstrndx >= p.sections.size())
        throw CubinError("cubin: section name table index out of range");
    const std::string_view names = contents(elf, p.sections[p.header.e_shstrndx]);
    for (const Elf64_Shdr& s : p.sections)
        p.names.push_back(string_at(names, s.sh_name));
    return p;
}

uint32_t architecture(const Elf64_Ehdr& h) {
    if (h.e_ident[EI_ABIVERSION] >= kAbiVersionCuda13) return (h.e_flags >> 8) & 0xff;
    return h.e_flags & 0xff;
}

bool holds_variables(std::string_view section) {
    return section.starts_with(".nv.global") ||
           (section.starts_with(".nv.constant") && !section.starts_with(".nv.constant0"));
}

uint64_t align_up(uint64_t value, uint64_t align) {
    return align > 1 ? (value + align - 1) / align * align : value;
}

Symbols symbols_of(std::string_view elf, const Parsed& p) {
    Symbols out;
    out.sm_arch = architecture(p.header);
    for (size_t i = 0; i < p.sections.size(); ++i) {
        const Elf64_Shdr& table = p.sections[i];
        if (table.sh_type != SHT_SYMTAB) continue;
        if (table.sh_entsize < sizeof(Elf64_Sym)) throw CubinError("cubin: bad symbol size");
        if (table.sh_link >= p.sections.size())
            throw CubinError("cubin: symbol names in a missing section");
        const std::string_view symbols = contents(elf, table);
        const std::string_view strings = contents(elf, p.sections[table.sh_link]);
        for (uint64_t at = 0; at + table.sh_entsize <= symbols.size(); at += table.sh_entsize) {
            const auto s = load_at<Elf64_Sym>(symbols, at);
            if (s.st_shndx == SHN_UNDEF || s.st_shndx >= p.sections.size()) continue;
            const unsigned type = ELF64_ST_TYPE(s.st_info);
            if (type == STT_FUNC && (s.st_other & kStoCudaEntry))
                out.kernels.emplace_back(string_at(strings, s.st_name));
            else if ((type == STT_OBJECT || type == kSttCudaObject) &&
                     holds_variables(p.names[s.st_shndx]))
                out.globals.emplace_back(string_at(strings, s.st_name));
        }
    }
    return out;
}

std::optional<std::string> embedded_of(std::string_view elf, const Parsed& p) {
    for (size_t i = 0; i < p.sections.size(); ++i) {
        if (p.names[i] != kPtxSection) continue;
        const std::string_view text = contents(elf, p.sections[i]);
        return std::string(text.substr(0, text.find('\0')));
    }
    return std::nullopt;
}

// ---- writing --------------------------------------------------------------------------------

struct OutSection {
    std::string name;
    uint32_t type = SHT_PROGBITS;
    uint64_t flags = 0;
    std::string data;
    uint64_t nobits_size = 0;
    uint32_t link = 0;
    uint32_t info = 0;
    uint64_t align = 1;
    uint64_t entsize = 0;
};

OutSection out_section(std::string name, uint32_t type, uint64_t flags, uint64_t align) {
    OutSection s;
    s.name = std::move(name);
    s.type = type;
    s.flags = flags;
    s.align = align;
    return s;
}

class StringTable {
public:
    uint32_t add(std::string_view s) {
        const auto offset = static_cast<uint32_t>(bytes_.size());
        bytes_.append(s);
        bytes_.push_back('\0');
        return offset;
    }
    const std::string& bytes() const { return bytes_; }

private:
    std::string bytes_ = std::string(1, '\0');
};

template <typename T>
void append(std::string& out, const T& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

Elf64_Sym symbol(uint32_t name, unsigned char bind, unsigned char type, uint16_t section,
                 uint64_t value, uint64_t size, unsigned char other = 0) {
    Elf64_Sym s{};
    s.st_name = name;
    s.st_info = static_cast<unsigned char>(ELF64_ST_INFO(bind, type));
    s.st_other = other;
    s.st_shndx = section;
    s.st_value = value;
    s.st_size = size;
    return s;
}

std::string lay_out(std::vector<OutSection>& sections, uint32_t sm_arch) {
    StringTable names;
    std::vector<uint32_t> name_offsets;
    for (const OutSection& s : sections)
        name_offsets.push_back(names.add(s.name));
    sections[1].data = names.bytes();

    std::string out(sizeof(Elf64_Ehdr), '\0');
    std::vector<uint64_t> offsets(sections.size(), 0);
    for (size_t i = 1; i < sections.size(); ++i) {
        out.resize(align_up(out.size(), sections[i].align), '\0');
        offsets[i] = out.size();
        out += sections[i].data;
    }
    out.resize(align_up(out.size(), 8), '\0');
    const uint64_t section_table = out.size();
    for (size_t i = 0; i < sections.size(); ++i) {
        const OutSection& s = sections[i];
        Elf64_Shdr h{};
        if (i != 0) {
            h.sh_name = name_offsets[i];
            h.sh_type = s.type;
            h.sh_flags = s.flags;
            h.sh_offset = offsets[i];
            h.sh_size = s.type == SHT_NOBITS ? s.nobits_size : s.data.size();
            h.sh_link = s.link;
            h.sh_info = s.info;
            h.sh_addralign = s.align;
            h.sh_entsize = s.entsize;
        }
        append(out, h);
    }

    Elf64_Ehdr h{};
    std::memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = ELFCLASS64;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    h.e_ident[EI_VERSION] = EV_CURRENT;
    h.e_ident[EI_OSABI] = kOsAbiCuda;
    h.e_ident[EI_ABIVERSION] = kAbiVersionCuda13;
    h.e_type = ET_EXEC;
    h.e_machine = kMachineCuda;
    h.e_version = EV_CURRENT;
    // As nvcc 13 writes them: the architecture in bits 8-15, low byte 4 before sm_100, else 2.
    h.e_flags = kFlagsCuda13 | (sm_arch & 0xff) << 8 | (sm_arch >= 100 ? 0x2 : 0x4);
    h.e_ehsize = sizeof(Elf64_Ehdr);
    h.e_phentsize = sizeof(Elf64_Phdr);
    h.e_shoff = section_table;
    h.e_shentsize = sizeof(Elf64_Shdr);
    h.e_shnum = static_cast<uint16_t>(sections.size());
    h.e_shstrndx = 1;
    std::memcpy(out.data(), &h, sizeof h);
    return out;
}

uint64_t type_size(ptx::Word type) {
    if (type == ptx::Word::of(".b128")) return 16;
    const ptx::Type t = type.type();
    return t == ptx::Type::Pred ? 0 : ptx::type_bytes(t);
}

// Elements of a braced initializer at its outermost level: "{1, 2, 3}" has 3.
uint64_t initializer_elements(const std::optional<std::string>& init) {
    if (!init || init->empty() || init->front() != '{') return 0;
    uint64_t count = 1;
    int depth = 0;
    for (char c : *init) {
        if (c == '{') ++depth;
        if (c == '}') --depth;
        if (c == ',' && depth == 1) ++count;
    }
    return count;
}

uint64_t variable_size(const ptx::Variable& v) {
    uint64_t size = type_size(v.type);
    if (v.vector) size *= v.vector;
    for (const auto& dim : v.dims)
        size *= dim ? *dim : initializer_elements(v.initializer);
    return size;
}

bool has(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

} // namespace

Symbols read_symbols(std::string_view elf) {
    return symbols_of(elf, parse(elf));
}

std::optional<std::string> embedded_ptx(std::string_view elf) {
    return embedded_of(elf, parse(elf));
}

Contents read_contents(std::string_view elf) {
    const Parsed p = parse(elf);
    return {symbols_of(elf, p), embedded_of(elf, p)};
}

std::optional<size_t> extent(std::string_view elf) {
    try {
        const Elf64_Ehdr h = elf_header(elf);
        uint64_t end = sizeof(Elf64_Ehdr);
        if (h.e_phnum != 0) {
            const uint64_t table = uint64_t{h.e_phnum} * h.e_phentsize;
            if (!inside(h.e_phoff, table, elf.size())) return std::nullopt;
            end = std::max(end, h.e_phoff + table);
        }
        const std::vector<Elf64_Shdr> sections = section_headers(elf, h);
        if (!sections.empty()) end = std::max(end, h.e_shoff + uint64_t{h.e_shnum} * h.e_shentsize);
        for (const Elf64_Shdr& s : sections) {
            if (s.sh_type == SHT_NOBITS || s.sh_type == SHT_NULL) continue;
            if (s.sh_offset > kMaxTables || s.sh_size > kMaxTables) return std::nullopt;
            end = std::max(end, s.sh_offset + s.sh_size);
        }
        return static_cast<size_t>(end);
    } catch (const CubinError&) {
        return std::nullopt;
    }
}

size_t image_size(const void* elf) {
    const std::string_view head(static_cast<const char*>(elf), sizeof(Elf64_Ehdr));
    const Elf64_Ehdr h = elf_header(head);
    if (h.e_shoff > kMaxTables || h.e_phoff > kMaxTables)
        throw CubinError("cubin: header tables implausibly far into the image");
    const uint64_t sections = h.e_shoff + uint64_t{h.e_shnum} * h.e_shentsize;
    const uint64_t programs = h.e_phoff + uint64_t{h.e_phnum} * h.e_phentsize;
    const uint64_t tables = std::max({uint64_t{sizeof h}, sections, programs});
    const auto end = extent(std::string_view(static_cast<const char*>(elf), tables));
    if (!end) throw CubinError("cubin: damaged ELF headers");
    return *end;
}

Cubin read(const void* elf, size_t size) {
    const std::string_view bytes(static_cast<const char*>(elf), size != 0 ? size : image_size(elf));
    return {bytes.size(), read_symbols(bytes)};
}

bool runs_on(uint32_t code_sm, uint32_t device_sm) {
    return code_sm / 10 == device_sm / 10 && code_sm % 10 <= device_sm % 10;
}

std::string write(const CubinSpec& spec) {
    std::vector<OutSection> sections(4);
    sections[1] = out_section(".shstrtab", SHT_STRTAB, 0, 1);
    sections[2] = out_section(".strtab", SHT_STRTAB, 0, 1);
    sections[3] = out_section(".symtab", SHT_SYMTAB, 0, 8);
    sections[3].link = 2;
    sections[3].entsize = sizeof(Elf64_Sym);
    StringTable strings;
    std::vector<Elf64_Sym> locals{Elf64_Sym{}}, globals;

    auto add_variables = [&](bool constant, const char* name, uint32_t type, uint64_t flags) {
        OutSection section = out_section(name, type, flags, 1);
        const auto index = static_cast<uint16_t>(sections.size());
        std::vector<Elf64_Sym> symbols;
        uint64_t size = 0;
        for (const Variable& v : spec.variables) {
            if (v.constant != constant) continue;
            size = align_up(size, v.align);
            symbols.push_back(
                symbol(strings.add(v.name), STB_LOCAL, STT_OBJECT, index, size, v.size));
            size += v.size;
            section.align = std::max<uint64_t>(section.align, v.align);
        }
        if (symbols.empty()) return;
        if (type == SHT_NOBITS)
            section.nobits_size = size;
        else
            section.data.assign(size, '\0');
        locals.push_back(symbol(strings.add(name), STB_LOCAL, STT_SECTION, index, 0, 0));
        locals.insert(locals.end(), symbols.begin(), symbols.end());
        sections.push_back(std::move(section));
    };
    add_variables(true, ".nv.constant3", SHT_PROGBITS, SHF_ALLOC);
    add_variables(false, ".nv.global", SHT_NOBITS, SHF_ALLOC | SHF_WRITE);

    std::vector<size_t> text_sections;
    for (const std::string& kernel : spec.kernels) {
        const auto index = static_cast<uint16_t>(sections.size());
        OutSection text =
            out_section(".text." + kernel, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 128);
        text.link = 3;
        text.info = static_cast<uint32_t>(globals.size()); // an index among the globals for now
        locals.push_back(symbol(strings.add(text.name), STB_LOCAL, STT_SECTION, index, 0, 0));
        globals.push_back(
            symbol(strings.add(kernel), STB_GLOBAL, STT_FUNC, index, 0, 0, kStoCudaEntry));
        text_sections.push_back(index);
        sections.push_back(std::move(text));
    }
    for (size_t index : text_sections)
        sections[index].info += static_cast<uint32_t>(locals.size()); // the kernel's symbol
    if (!spec.ptx.empty()) {
        sections.push_back(out_section(kPtxSection, SHT_PROGBITS, 0, 1));
        sections.back().data = spec.ptx;
    }

    sections[2].data = strings.bytes();
    sections[3].info = static_cast<uint32_t>(locals.size());
    for (const Elf64_Sym& s : locals)
        append(sections[3].data, s);
    for (const Elf64_Sym& s : globals)
        append(sections[3].data, s);
    return lay_out(sections, spec.sm_arch);
}

CubinSpec spec_for(const Module& module, std::string ptx_text, uint32_t sm_arch) {
    CubinSpec spec;
    spec.sm_arch = sm_arch;
    spec.ptx = std::move(ptx_text);
    for (const TopLevel& item : module.items) {
        if (const auto* f = std::get_if<Function>(&item)) {
            if (f->is_entry && f->body && !has(f->linkage, ".extern"))
                spec.kernels.push_back(f->name);
        } else if (const auto* v = std::get_if<ptx::Variable>(&item)) {
            const bool constant = v->space == StateSpace::Const;
            if ((!constant && v->space != StateSpace::Global) || has(v->linkage, ".extern"))
                continue;
            const uint64_t size = variable_size(*v);
            if (size == 0) continue; // .texref, .surfref, .samplerref: no device memory
            spec.variables.push_back({v->name, size,
                                      v->align.value_or(static_cast<uint32_t>(type_size(v->type))),
                                      constant});
        }
    }
    return spec;
}

} // namespace cfr::ptx::cubin
